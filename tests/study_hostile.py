#!/usr/bin/env python3
"""Hostile input for `mcfleet study` (tests/study_hostile.sh): study tables,
location maps and options that a center engineer or a researcher may hand
it. Each case runs the tool's main() in this process (hostile_calls.call:
no traceback allowed) and checks its exit code, the file:line or option its
message names, and where it studies: strict JSON (no NaN or infinity), one
text line per item (mcfleet_results.show), an HTML page with every name
escaped.

usage: study_hostile.py ANALYSIS_DIR TESTS_DIR WORK_DIR
"""
import importlib.util
import json
import os
import sys
import time

analysis, here, work = sys.argv[1:4]
sys.path[:0] = [analysis, here]
from hostile_calls import call   # noqa: E402
import mcfleet_study as ms   # noqa: E402
import mcfleet_study_data as md   # noqa: E402
from mcfleet_results import show   # noqa: E402

HTML = importlib.util.find_spec("matplotlib") is not None   # the page's cases need it
failures = []


def fail(name, why):
    failures.append("%s: %s" % (name, why))


def refuse_constant(c):
    raise ValueError("%s in the JSON" % c)


def put(name, data):
    p = os.path.join(work, name)
    with open(p, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return p


def study(name, args, rc, said=None):
    """main(args) in this process: (its stderr, the JSON it wrote) where it
    exits RC and its message holds SAID; failures noted otherwise"""
    out = os.path.join(work, "out.json")
    if os.path.exists(out):
        os.unlink(out)
    extra = ["--format", "json", "-o", out] if rc == 0 and "-o" not in args else []
    code, err = call(lambda: ms.main(["--boot", "20"] + args + extra))
    if code != rc:
        fail(name, "exit %s, expected %d:\n%s" % (code, rc, err[-1500:]))
        return err, None
    if said and said not in err:
        fail(name, "'%s' not in its message: %s" % (said, err.strip()[-500:]))
    if rc != 0 or extra == []:
        return err, None
    if err.strip():
        fail(name, "exit 0 with a message (a numpy warning?): %s" % err.strip()[-500:])
    try:
        res = json.loads(open(out).read(), parse_constant=refuse_constant)
    except ValueError as e:
        fail(name, "not strict JSON: %s" % e)
        return err, None
    return err, res


def text_of(name, args):
    """the text form; each line printable (one line per item)"""
    p = os.path.join(work, "out.txt")
    code, err = call(lambda: ms.main(args + ["--boot", "20", "-o", p, "--force"]))
    if code != 0:
        fail(name, "text: exit %s: %s" % (code, err[-1500:]))
        return ""
    text = open(p, encoding="utf-8").read()
    for line in text.splitlines():
        if show(line) != line:
            fail(name, "text line not printable: %r" % line[:200])
    return text


def page_of(name, args):
    """the HTML page, where matplotlib is there"""
    if not HTML:
        return None
    p = os.path.join(work, "out.html")
    code, err = call(lambda: ms.main(args + ["--boot", "20", "--html", p, "--force"]))   # the text: dropped
    if code != 0:
        fail(name, "html: exit %s: %s" % (code, err[-1500:]))
        return None
    return open(p, encoding="utf-8").read()


def tables():
    """hostile study tables: refused with exit 2 naming file:line, or studied"""
    H = "gpu,test,value\n"
    bad = [   # name, content, what the message must hold (after the file's path)
        ("short-row", H + "A,t,1\nB,t\n", ":3: 2 cells, the header has 3"),
        ("unclosed-quote", H + "A,t,1\n\"B,t,2\nC,t,3\n", ":3: 1 cells, the header has 3 (a quoted cell runs over"),
        ("dup-column", "gpu,test,value,value\nA,t,1,1\n", ":1: column 'value' named twice"),
        ("dup-column-spaced", "gpu, test,test ,value\nA,t,t,1\n", ":1: column 'test' named twice"),
        ("empty-column", "gpu,test,value,\nA,t,1,\n", ":1: column 4 has no name"),
        ("loc-no-name", "gpu,test,value,loc:\nA,t,1,c\n", ":1: column 4 has no name after 'loc:'"),
        ("control-column", "gpu,test,value,cov:t\x07emp\nA,t,1,5\n", ":1: column 4's name 'cov:t?emp' holds a control"),
        ("unknown-column", "gpu,test,value,speed\nA,t,1,2\n", ":1: unknown column 'speed'"),
        ("no-value-column", "gpu,test\nA,t\n", ":1: no column 'value'"),
        ("unknown-kind", "gpu,test,value,kind\nA,t,1,matrix\nB,t,1,gemm\n", ":3: kind 'gemm': one of"),
        ("bad-better", "gpu,test,value,better\nA,t,1,2\n", ":2: better '2'"),
        ("better-flips", "gpu,test,value,better\nA,t,1,1\nB,t,1,-1\n", ":3: better -1, where earlier rows"),
        ("cov-text", "gpu,test,value,cov:sm_mhz\nA,t,1,1400\nB,t,1,fast\n", ":3: column cov:sm_mhz: 'fast' is not"),
        ("two-locations", "gpu,test,value,host,loc:cab\nA,t,1,n1,c1\nB,t,1,n2,c1\nC,t,1,n1,c2\n",
         ":4: node n1 at cab=c2, where "),
        ("empty-gpu", H + "A,t,1\n,t,2\n", ":3: an empty gpu"),
        ("not-utf8", (H + "A,t,1\n").encode() + b"B\xff\xfe,t,2\n", ":3: not UTF-8 text (byte 0xff at column 2)"),
        ("oversized-cell", H + "A,t,1\n" + "B" * 200000 + ",t,2\n", ":3: field larger than field limit"),
    ]
    for name, data, said in bad:
        p = put(name + ".csv", data)
        study(name, [p], 2, p + said)
    empty = [   # nothing to study (exit 3, docs/study.md), the table and why named; beside a table with rows, studied
        ("empty", b"", ": an empty table: no header row and no rows"),
        ("header-only", H, ": no row with a value to study (0 rows refused)"),
        ("comments-only", "# a table\n# nothing else\n", ": an empty table"),
        ("all-refused", H + "A,t,0\nB,t,-1\nC,t,nan\nD,t,inf\nE,t,x\n", ": no row with a value to study (5 rows"),
    ]
    good = put("good.csv", H + "A,t,1\nB,t,1.1\nC,t,0.9\n")
    for name, data, said in empty:
        p = put(name + ".csv", data)
        err, _ = study(name, [p], 3, "nothing to study")
        if p + said not in err:
            fail(name, "'%s' not in its message: %s" % (p + said, err.strip()[-500:]))
        _, res = study(name + "+rows", [p, good], 0)
        if res is not None and not any(r["where"] == p and said[2:] in r["why"] for r in res["refused"]):
            fail(name + "+rows", "the empty table not said among the refused: %s" % res["refused"])
    fifo = os.path.join(work, "fifo.csv")   # would wait for a writer for ever
    if hasattr(os, "mkfifo") and not os.path.exists(fifo):
        os.mkfifo(fifo)
        study("fifo", [fifo], 2, fifo + ": not a regular file")
    p = put("new\nline.csv", H + "A,t,1\nB,t\n")   # a file's name with a newline: its message still one line
    err, _ = study("newline-name", [p], 2, "new?line.csv:3: 2 cells")
    if "\n" in err.strip():
        fail("newline-name", "the message over several lines: %r" % err)
    d = os.path.join(work, "folder.csv")
    os.makedirs(d, exist_ok=True)
    study("directory", [d], 2, d + ": cannot open: Is a directory")

    # a byte order mark, CRLF line ends, quoted cells with commas and newlines: read as meant
    p = put("BOM-CRLF.CSV", b"\xef\xbb\xbf# made by a spreadsheet\r\ngpu,test,value,kind\r\n"
            b"\"GPU,0\",t,1.00,matrix\r\n\"GPU\r\n1\",t,1.02,matrix\r\n\r\nGPU2,t,0.98,matrix\r\n")
    _, res = study("bom-crlf", [p], 0)
    if res:
        gpus = sorted(g["gpu"] for g in res["figures"][0]["gpus"])
        if gpus != ["GPU\r\n1", "GPU,0", "GPU2"]:
            fail("bom-crlf", "GPUs read as %r" % gpus)
        if res["inputs"][0]["comments"] != ["made by a spreadsheet"]:
            fail("bom-crlf", "comment read as %r" % res["inputs"][0]["comments"])
    text_of("bom-crlf", [p])

    # NaN, inf, negative, zero refused and listed; 1e308 and 1e-308 studied without a numpy warning
    p = put("values.csv", H + "A,t,nan\nB,t,inf\nC,t,-1\nD,t,0\nE,t,1e308\nF,t,1e-308\nG,t,1\nE,t,1e308\n"
            "F,t,1e-300\nG,t,2\n")
    _, res = study("values", [p], 0)
    if res and (len(res["refused"]) != 4 or res["figures"][0]["n_gpus"] != 3):
        fail("values", "refused %s, GPUs %s" % (res["refused"], res["figures"][0]["n_gpus"]))
    p = put("huge-cov.csv", "gpu,test,value,kind,cov:x,run\n" + "".join(
        "G%d,t,%s,matrix,%s,%d\n" % (g, ("1", "2", "1e308", "1e-308")[(g + r) % 4], ("1e308", "-1e308", "5")[g % 3], r)
        for r in range(3) for g in range(10)))
    study("huge-cov", [p], 0)

    # run times that are no time (1e308, before 1970): the runs taken in their order, no overflow
    p = put("times.csv", "gpu,test,value,kind,run,time\n" + "".join(
        "G%d,t,%.3f,matrix,%d,%s\n" % (g, 1 + 0.01 * ((g + r) % 3), r, ("1e308", "-1e308", "1", "2")[r])
        for r in range(4) for g in range(6)))
    study("times", [p], 0)

    # a loc: column with empty cells: those nodes at '?', listed; not a cabinet named ''
    p = put("loc-empty.csv", "gpu,test,value,host,loc:cab\nA,t,1,n1,\nB,t,2,n2,c1\nC,t,1.5,n3,c2\nD,t,1.2,n4,\n"
            "E,t,1.1,n5,c1\n")
    _, res = study("loc-empty", [p], 0)
    if res:
        if sorted(res["location"]["hosts_unparsed"]) != ["n1", "n4"]:
            fail("loc-empty", "unplaced %s" % res["location"]["hosts_unparsed"])
        if res["nodes"]["n1"]["loc"] != {"cab": "?"}:
            fail("loc-empty", "n1 at %s" % res["nodes"]["n1"]["loc"])

    # degenerate designs: one GPU, one row, one observation of a GPU, every value the same
    for name, data in (("one-gpu", H + "A,t,1\nA,t,1.1\nA,t,0.9\n"), ("one-row", H + "A,t,1\n"),
                       ("one-obs", H + "A,t,1\nB,t,1.1\nB,t,1.2\nC,t,1.3\nC,t,1.0\n"),
                       ("one-gpu-matrix", "gpu,test,value,kind,run\nA,t,1,matrix,1\nA,t,1.1,matrix,2\n")):
        p = put(name + ".csv", data)
        study(name, [p], 0)
        text_of(name, [p])
    p = put("zero-variance.csv", "gpu,test,value,kind,run,host,cov:sm_mhz,cov:temp_c,time\n" + "".join(
        "G%d,t,5,matrix,%d,n%d,1500,%d,%d\n" % (g, r, g // 2, 50 + g, 1000 * r)
        for r in range(4) for g in range(8) for _ in range(3)))
    _, res = study("zero-variance", [p], 0)
    if res:
        f = res["figures"][0]
        if any(c["sd"] != 0 for c in f["components"]) or f["repeatability"]["icc"] is not None:
            fail("zero-variance", "components %s, ICC %s" % (f["components"], f["repeatability"]))
    if "repeatability: no ICC" not in text_of("zero-variance", [p]):
        fail("zero-variance", "the text does not say there is no ICC")
    page_of("zero-variance", [p])

    # one GPU per node (a table without host): the noise is the repetitions' spread, not 0
    p = put("no-host.csv", "gpu,test,value,kind\n" + "".join(
        "G%d,t,%.4f,matrix\n" % (g, 1 + 0.03 * ((g * 7 + k * 3) % 5 - 2)) for g in range(12) for k in range(4)))
    _, res = study("no-host", [p], 0)
    if res:
        rep = [c for c in res["figures"][0]["components"] if c["level"] == "repetition"][0]
        if abs(res["classes"]["matrix"]["noise"] - rep["sd"]) > 1e-9:
            fail("no-host", "classes' noise %s, the repetitions' sd %s" % (res["classes"]["matrix"]["noise"], rep["sd"]))

    # names with control characters, HTML and 20,000 characters: one line each in the text, escaped in the page
    names = ["<script>alert(1)</script>", "a\x1b[31mb", "tab\there", "\u202eevil", "L" * 20000, "$x^2$", "nul\x00"]
    rows = ["gpu,test,value,kind,host,unit,metric,sku,loc:cab,cov:temp_c"]
    for i in range(42):
        n = names[i % len(names)]
        q = lambda x: '"%s"' % x.replace('"', '""')
        rows.append(",".join([q("%s%d" % (n, i)), q(names[i % 3]), "%.3f" % (1 + (i % 5) * 0.01), "matrix",
                              q("%s%d" % (names[(i + 1) % len(names)], i // 2)), q("<u>"), q(names[1]), "<i>",
                              q("<c%d>" % (i // 14)), str(50 + i)]))
    p = put("names.csv", "\n".join(rows) + "\n")
    study("names", [p], 0)
    text_of("names", [p])
    page = page_of("names", [p])
    if page is not None:
        import re
        if "<script>" in page or "<u>" in page or "<i>" in page or "<c0>" in page:
            fail("names", "a name not escaped in the page")
        if re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202e]", page):
            fail("names", "a control character in the page")

    # 100,000 rows (2,000 GPUs, 5 runs, 2 tests): read and studied in a few seconds
    rows = ["gpu,test,value,kind,run,host,loc:cab,cov:sm_mhz,cov:power_w"]
    for r in range(5):
        for g in range(2000):
            for t, k in (("gemm", "matrix"), ("stream", "memory")):
                for rep in range(5):
                    x = (g * 31 + r * 7 + rep * 13) % 97
                    rows.append("GPU-%05d,%s,%.4f,%s,r%d,nid%06d,c%d,%d,%d" % (
                        g, t, 100 + x * 0.05, k, r, g // 4, g // 256, 1400 + x, 300 + x))
    p = put("big.csv", "\n".join(rows) + "\n")
    t0 = time.monotonic()
    _, res = study("100k-rows", [p], 0)
    took = time.monotonic() - t0
    print("100,000 rows studied in %.1f s" % took)
    if took > 10:
        fail("100k-rows", "%.1f s (a few seconds expected)" % took)
    if res and (res["figures"][0]["n_gpus"] != 2000 or res["figures"][0]["n_obs"] != 50000):
        fail("100k-rows", "GPUs %d, observations %d" % (res["figures"][0]["n_gpus"], res["figures"][0]["n_obs"]))


def fleet():
    """a table of 16 GPUs on 8 nodes nid001000.. (2 per node), 3 repetitions each"""
    return put("fleet.csv", "gpu,test,value,kind,host\n" + "".join(
        "G%d,t,%.4f,matrix,nid%06d\n" % (g, 1 + 0.01 * ((g * 5 + k) % 7), 1000 + g // 2)
        for g in range(16) for k in range(3)))


def locations():
    """--location and --location-map: a bad pattern or map is exit 2 naming it"""
    p = fleet()
    study("location-no-group", [p, "--location", r"nid(\d{3})\d{3}"], 2, "--location 'nid(\\d{3})\\d{3}': no named group")
    study("location-bad-regex", [p, "--location", "(?P<a>"], 2, "--location '(?P<a>': not a regular expression")
    _, res = study("location-ok", [p, "--location", r"nid(?P<cabinet>\d{4})\d{2}"], 0)
    if res and (res["location"]["levels"] != ["cabinet"] or res["nodes"]["nid001000"]["loc"] != {"cabinet": "0010"}):
        fail("location-ok", "location %s" % res["location"])
    # a pattern that backtracks for ever on one node name: stopped, named (the bound lowered to 1 s here)
    slow = put("backtrack.csv", "gpu,test,value,host\nA,t,1,%s\nB,t,1,n2\n" % ("x" * 40))
    md.MATCH_SECONDS, t0 = 1, time.monotonic()
    study("location-backtracks", [slow, "--location", "(?P<a>(x+x+)+y)"], 2, "took over 1 s (a pattern that backtracks")
    md.MATCH_SECONDS = 10
    if time.monotonic() - t0 > 8:
        fail("location-backtracks", "stopped after %.1f s" % (time.monotonic() - t0))

    maps = [   # name, content, exit code, what the message must hold after "--location-map PATH"
        ("map-short-row", "host,cab\nnid001000,c1\nnid001001\n", 2, ":3: 1 cells, the header has 2"),
        ("map-no-header", "node,cab\nnid001000,c1\n", 2, ":1: the header must be host,<level>"),
        ("map-empty", "", 2, ":1: the header must be host,<level>"),
        ("map-no-level", "host\nnid001000\n", 2, ":1: the header must be host,<level>"),
        ("map-two-places", "host,cab\nnid001000,c1\nnid001001,c1\nnid001000,c2\n", 2,
         ":4: host nid001000 at cab=c2, where line 2 put it at cab=c1"),
        ("map-level-twice", "host,cab,cab\nnid001000,c1,c2\n", 2, ":1: column 'cab' named twice"),
        ("map-not-utf8", b"host,cab\nnid001000,\xe9\n", 2, ":2: not UTF-8 text"),
        ("map-empty-host", "host,cab\n,c1\n", 2, ":2: an empty host"),
        ("map-bom-crlf", b"\xef\xbb\xbfhost,cab\r\nnid001000,c1\r\nnid001001,\r\n# a comment\r\n", 0, None),
    ]
    for name, data, rc, said in maps:
        m = put(name + ".csv", data)
        _, res = study(name, [p, "--location-map", m], rc, None if said is None else "--location-map %s%s" % (m, said))
        if res:   # nid001001's cell empty, the rest unlisted: all at '?' but nid001000
            if res["nodes"]["nid001000"]["loc"] != {"cab": "c1"} or len(res["location"]["hosts_unparsed"]) != 7:
                fail(name, "location %s, node 0 at %s" % (res["location"], res["nodes"]["nid001000"]["loc"]))
    study("map-missing", [p, "--location-map", os.path.join(work, "no-such.csv")], 2, "no-such.csv: cannot open")
    study("map-directory", [p, "--location-map", work], 2, "cannot open: Is a directory")


def options():
    """option bounds (exit 2, the option named) and outputs (refused: 2; cannot be written: 3)"""
    p = fleet()
    for args, said in ((["--boot", "19"], "--boot 19: 20 to 100000"), (["--boot", "100001"], "--boot 100001"),
                       (["--kmax", "0"], "--kmax 0: 1 to 26"), (["--kmax", "27"], "--kmax 27"),
                       (["--alpha", "0"], "--alpha 0.0"), (["--alpha", "1"], "--alpha 1.0"),
                       (["--alpha", "nan"], "--alpha nan"), (["--min-rel", "-1"], "--min-rel -1.0"),
                       (["--min-rel", "nan"], "--min-rel nan"), (["--seed", "-1"], "--seed -1"),
                       (["--boot", "x"], "argument --boot: invalid int value")):
        study("option " + " ".join(args), [p] + args, 2, said)
    study("test-matches-nothing", [p, "--test", "no-such-*"], 3, "nothing to study")
    study("input-twice", [p, os.path.join(work, ".", "fleet.csv")], 2, "given twice (also as %s)" % p)
    study("no-input", [], 2, "no input")

    os.makedirs(os.path.join(work, "dir"), exist_ok=True)
    link = os.path.join(work, "link.json")
    if not os.path.lexists(link):
        os.symlink(os.path.join(work, "target.json"), link)
    exists = put("exists.json", "{}")
    for name, args, rc, said in (
            ("o-directory", ["-o", os.path.join(work, "dir")], 2, "is a directory"),
            ("o-symlink", ["-o", link, "--force"], 2, "is a symlink"),
            ("o-exists", ["-o", exists], 2, "exists: mcfleet does not overwrite"),
            ("o-empty", ["-o", ""], 2, "-o: an empty path"),
            ("html-empty", ["--html", ""], 2, "--html: an empty path"),
            ("o-is-input", ["-o", p, "--force"], 2, "is an input"),
            ("html-is-input", ["--html", p, "--force"], 2, "is an input"),
            ("o-html-same", ["-o", os.path.join(work, "same"), "--html", os.path.join(work, "same")], 2,
             "name the same file"),
            ("o-no-folder", ["-o", os.path.join(work, "no-dir", "x.json")], 3, "cannot write: no folder"),
            ("html-no-folder", ["--html", os.path.join(p, "x.html")], 3, "cannot write: no folder")):
        study(name, [p] + args, rc, said)
    if os.path.isdir("/proc") and HTML:   # a folder no one may create a file in, even root
        study("html-unwritable", [p, "--html", "/proc/study.html"], 3, "--html /proc/study.html: cannot write")
    if not open(p).read().startswith("gpu,test"):
        fail("o-is-input", "the input was overwritten")


SECTIONS = [tables, locations, options]


if __name__ == "__main__":
    for section in SECTIONS:
        section()
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    print("%d failures" % len(failures))
    sys.exit(1 if failures else 0)
