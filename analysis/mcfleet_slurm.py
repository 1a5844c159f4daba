"""Slurm's side of the exports (docs/operations.md): the study's performance
classes as node Weight and Features, and drain commands, in Slurm's own
syntax.

Found on Slurm 22.05 (tests/health_slurm.sh proves each on a live cluster):
  - a second NodeName line for a node slurm.conf already defines is fatal:
    `scontrol reconfigure` stops slurmctld with "Duplicated NodeName". Weights
    and features therefore go INTO the site's own NodeName lines: merge()
    rewrites them, splitting a range (n[1-16]) into runs of nodes that share a
    weight and features, each keeping every other key of its line (a per-node
    Port, NodeAddr or NodeHostname list split with it), in the same order.
  - `scontrol update NodeName=.. Weight=.. AvailableFeatures=..` works at once
    but is lost at the next `scontrol reconfigure` or restart (scontrol(1)):
    update_commands() are for the interval until the merged file is in place.

Weight (Slurm allocates the nodes of LOWEST weight first): a node's own
figure is its class's slowdown s (percent behind the best class, A = 0) in
the workload kind given (--weight-kind), or the largest over the kinds it has
(all, the default), and its weight is
    1 + round(10 * s)            (0.1 % resolution, at most 9999)
so the fastest class goes first, equal classes tie and the slowest nodes are
used last. Where the site's line already has a Weight w > 1, the site's
order is kept and ours orders nodes within it: w * 10000 + ours (a weight of
1, Slurm's default, orders nothing: ours alone, still below 2 * 10000). Such a line is then
recognised by its mcf_ features, and w read back as Weight // 10000, so a
second export of an exported file gives the same file.
Features: mcf_<kind>_<class> (mcf_matrix_A, mcf_memory_B): `sbatch
--constraint=mcf_matrix_A`. The site's own features are kept, earlier mcf_
features replaced.
"""
import re
import subprocess

FEATURE_PREFIX = "mcf_"
WEIGHT_SCALE = 10.0       # weight units per percent of slowdown
WEIGHT_MAX = 9999         # ours stays below SITE_FACTOR
SITE_FACTOR = 10000       # a site's Weight w becomes w * SITE_FACTOR + ours
REASON_MAX = 120          # bytes of a drain reason: Slurm 22.05 took 609, sinfo -R shows 20; NHC prefixes its own
PER_NODE_KEYS = ("nodeaddr", "nodehostname", "port")   # lists that pair with NodeName's nodes, one each


class Bad(Exception):
    """a study or configuration the export cannot use (exit 2)"""


# ---------------------------------------------------------------- hostlists
def _split_top(text):
    """TEXT split at commas outside brackets"""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [x for x in out if x]


def _range(spec):
    """'1-3,5' or '01-03' -> ['1','2','3','5'] / ['01','02','03'] (zero padding kept)"""
    out = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise Bad("bad range '%s' in a host list" % spec)
        width = len(lo) if lo.startswith("0") and len(lo) > 1 else 0
        for n in range(int(lo), int(hi or lo) + 1):
            out.append("%0*d" % (width, n) if width else str(n))
    return out


def expand(hostlist):
    """a Slurm host list ('n[1-3],x1c[0-1]s[2,4]', a port range '17001-17016')
    as the names in its order"""
    hostlist = hostlist.strip().strip('"')
    if re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", hostlist):   # a port list: 17001-17016
        return _range(hostlist)
    names = []
    for item in _split_top(hostlist):
        parts = [""]
        for text, spec in re.findall(r"([^\[]*)(?:\[([^\]]*)\])?", item):
            parts = [p + text for p in parts]
            if spec:
                parts = [p + n for p in parts for n in _range(spec)]
        names.extend(parts)
    return names


def compress(names):
    """names (in their order) as a host list that expands to the same order:
    consecutive names of one prefix, suffix and padding share a bracket"""
    groups = []
    for name in names:
        m = re.fullmatch(r"(.*?)(\d+)(\D*)", name)
        key = (m.group(1), m.group(3), len(m.group(2)) if m.group(2).startswith("0") and len(m.group(2)) > 1 else 0) \
            if m else (name, None, 0)
        if m and groups and groups[-1][0] == key:
            groups[-1][1].append(int(m.group(2)))
        else:
            groups.append((key, [int(m.group(2))] if m else []))
    out = []
    for (prefix, suffix, width), nums in groups:
        if suffix is None:
            out.append(prefix)
            continue
        fmt = lambda n: "%0*d" % (width, n) if width else str(n)  # noqa: E731
        spans, start = [], 0
        for i in range(1, len(nums) + 1):
            if i == len(nums) or nums[i] != nums[i - 1] + 1:
                a, b = nums[start], nums[i - 1]
                spans.append(fmt(a) if a == b else "%s-%s" % (fmt(a), fmt(b)))
                start = i
        out.append("%s%s%s" % (prefix, spans[0] if len(nums) == 1 else "[%s]" % ",".join(spans), suffix))
    return ",".join(out)


# ---------------------------------------------------------------- classes
def class_slowdowns(kind_block):
    """{class name: slowdown in percent behind the best class}: the study's
    "slowdown" where given, else from the centres (percent of log ratio)"""
    import math
    out = {}
    classes = kind_block.get("classes") or []
    centres = [c.get("centre") for c in classes if isinstance(c.get("centre"), (int, float))]
    best = max(centres) if centres else 0.0
    for c in classes:
        s = c.get("slowdown")
        if not isinstance(s, (int, float)) or s != s:
            cen = c.get("centre")
            s = 100.0 * (1.0 - math.exp((cen - best) / 100.0)) if isinstance(cen, (int, float)) else 0.0
        out[str(c.get("name"))] = max(0.0, float(s))
    return out


def node_classes(study, weight_kind="all"):
    """{node: {"weight": int, "features": [mcf_...], "classes": {kind: class}}}
    from the study's classes (the node's class is its slowest GPU's: the
    study's "nodes" per kind)"""
    classes = study.get("classes")
    if not isinstance(classes, dict) or not classes:
        raise Bad("the study has no performance classes (its \"classes\" is empty): nothing to export to Slurm")
    if weight_kind != "all" and weight_kind not in classes:
        raise Bad("--weight-kind %s: the study has classes for %s" % (weight_kind, ", ".join(sorted(classes))))
    out = {}
    for kind in sorted(classes):
        block = classes[kind]
        if not isinstance(block, dict) or not isinstance(block.get("nodes"), dict):
            raise Bad("the study's classes.%s has no \"nodes\"" % kind)
        if not re.fullmatch(r"[A-Za-z0-9_]+", kind):
            raise Bad("the study's class kind '%s' is not a Slurm feature name part (letters, digits, _)" % kind)
        slow = class_slowdowns(block)
        for node, v in block["nodes"].items():
            cls = str(v.get("class", "")) if isinstance(v, dict) else ""
            if not re.fullmatch(r"[A-Za-z0-9_]+", cls):
                raise Bad("the study's classes.%s.nodes.%s has no usable class name ('%s')" % (kind, node, cls))
            rec = out.setdefault(node, {"classes": {}, "slowdown": {}})
            rec["classes"][kind] = cls
            rec["slowdown"][kind] = slow.get(cls, 0.0)
    for node, rec in out.items():
        s = rec["slowdown"]
        worst = max(s.values()) if weight_kind == "all" else s.get(weight_kind, 0.0)
        rec["weight"] = min(WEIGHT_MAX, 1 + int(round(WEIGHT_SCALE * worst)))
        rec["features"] = ["%s%s_%s" % (FEATURE_PREFIX, k, c) for k, c in sorted(rec["classes"].items())]
    return out


def combined(ours, site_weight, site_features):
    """(weight, features) where the site's own are kept (module docstring)"""
    mine = any(f.startswith(FEATURE_PREFIX) for f in site_features)
    base = site_weight // SITE_FACTOR if (mine and site_weight is not None) else site_weight
    # Slurm's default weight is 1: a site weight of 1 (said or not) orders nothing
    weight = ours["weight"] if not base or base <= 1 else base * SITE_FACTOR + ours["weight"]
    feats = [f for f in site_features if not f.startswith(FEATURE_PREFIX)] + ours["features"]
    return weight, feats


def fragment_lines(study, weight_kind="all"):
    """NodeName=<n> Weight=<w> Features=<f> per node: for a site whose node
    definitions do not name these nodes yet (else merge())"""
    nodes = node_classes(study, weight_kind)
    head = ["# mcfleet export: Slurm Weight and Features of the study's performance classes (docs/operations.md)",
            "# weight = 1 + round(10 x the class's slowdown in percent, %s); lower is allocated first"
            % ("the largest over the kinds" if weight_kind == "all" else "kind " + weight_kind),
            "# NOT to be appended to a slurm.conf that defines these nodes already: a second NodeName line for a",
            "# node stops slurmctld (\"Duplicated NodeName\"); merge with --slurm-conf FILE instead"]
    return "\n".join(head + ["NodeName=%s Weight=%d Features=%s" % (n, r["weight"], ",".join(r["features"]))
                             for n, r in sorted(nodes.items())]) + "\n"


# ---------------------------------------------------------------- slurm.conf
def _tokens(line):
    """KEY=VALUE words of a slurm.conf line (a value may be quoted)"""
    return re.findall(r'\S+?=(?:"[^"]*"|\S*)|\S+', line)


def _key(tok):
    return tok.split("=", 1)[0].lower()


def _value(tok):
    return tok.split("=", 1)[1].strip('"') if "=" in tok else ""


def merge(study, conf_text, weight_kind="all"):
    """conf_text (a slurm.conf, or the file it Includes with the NodeName
    lines) with the study's weights and features merged into its NodeName
    lines. Returns (text, notes): notes name the study's nodes the file does
    not define and lines that could not be split."""
    nodes = node_classes(study, weight_kind)
    seen, notes, out = set(), [], []
    lines = conf_text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.endswith("\\") and i + 1 < len(lines):   # a continued line, joined
            i += 1
            line = line[:-1] + " " + lines[i]
        i += 1
        body, hash_, comment = line.partition("#")
        toks = _tokens(body)
        if not toks or _key(toks[0]) != "nodename" or _value(toks[0]).lower() == "default":
            out.append(line)
            continue
        names = expand(_value(toks[0]))
        if not any(n in nodes for n in names):
            out.append(line)
            continue
        per_node = {}
        for t in toks[1:]:
            k = _key(t)
            if k in PER_NODE_KEYS:
                vals = expand(_value(t))
                if len(vals) == len(names) and len(names) > 1:
                    per_node[k] = (t.split("=", 1)[0], vals)
                elif len(vals) != 1:
                    notes.append("left as it is: its %s lists %d values for %d nodes: %s" % (
                        t.split("=", 1)[0], len(vals), len(names), line.strip()))
                    per_node = None
                    break
        if per_node is None:
            out.append(line)
            continue
        rest = [t for t in toks[1:] if _key(t) not in ("weight", "feature", "features") and _key(t) not in per_node]
        site_w = next((int(_value(t)) for t in toks[1:] if _key(t) == "weight" and _value(t).isdigit()), None)
        site_f = next(([f for f in _value(t).split(",") if f] for t in toks[1:] if _key(t) in ("feature", "features")),
                      [])
        runs = []   # consecutive nodes sharing (weight, features)
        for j, n in enumerate(names):
            if n in nodes:
                seen.add(n)
                w, f = combined(nodes[n], site_w, site_f)
            else:
                w, f = site_w, site_f
            key = (w, tuple(f))
            if runs and runs[-1][0] == key:
                runs[-1][1].append(j)
            else:
                runs.append((key, [j]))
        if hash_ and len(runs) > 1:
            out.append("#" + comment)   # the line's comment, above the lines it became
        for (w, f), idx in runs:
            words = ["%s=%s" % (toks[0].split("=", 1)[0], compress([names[j] for j in idx]))]
            words += rest
            for k, (spelled, vals) in per_node.items():
                sel = [vals[j] for j in idx]
                words.append("%s=%s" % (spelled, compress_values(sel)))
            if w is not None:
                words.append("Weight=%d" % w)
            if f:
                words.append("Features=%s" % ",".join(f))
            out.append(" ".join(words) + ((" " + hash_ + comment) if hash_ and len(runs) == 1 else ""))
    missing = sorted(set(nodes) - seen)
    if missing:
        notes.append("%d node%s of the study not defined by a NodeName line of this file (not written): %s" % (
            len(missing), "" if len(missing) == 1 else "s", compress(missing)))
    return "\n".join(out), notes


def compress_values(vals):
    """a per-node list back in slurm.conf syntax: ports as ranges, names as a host list"""
    if all(v.isdigit() for v in vals):
        nums = [int(v) for v in vals]
        if nums == list(range(nums[0], nums[0] + len(nums))):
            return str(nums[0]) if len(nums) == 1 else "%d-%d" % (nums[0], nums[-1])
        return ",".join(vals)
    return compress(vals)


def live_nodes(show_node_text):
    """{node: (weight, [features])} from `scontrol show node -o`"""
    out = {}
    for line in show_node_text.splitlines():
        m = re.match(r"NodeName=(\S+)", line)
        if not m:
            continue
        w = re.search(r"\bWeight=(\d+)", line)
        f = re.search(r"\bAvailableFeatures=(\S*)", line)
        feats = [] if not f or f.group(1) in ("(null)", "") else f.group(1).split(",")
        out[m.group(1)] = (int(w.group(1)) if w else None, feats)
    return out


def conf_nodes(conf_text):
    """{node: (weight, [features])} of the NodeName lines of a slurm.conf"""
    out = {}
    for line in conf_text.replace("\\\n", " ").splitlines():
        toks = _tokens(line.partition("#")[0])
        if not toks or _key(toks[0]) != "nodename" or _value(toks[0]).lower() == "default":
            continue
        w = next((int(_value(t)) for t in toks[1:] if _key(t) == "weight" and _value(t).isdigit()), None)
        f = next(([x for x in _value(t).split(",") if x] for t in toks[1:] if _key(t) in ("feature", "features")), [])
        for n in expand(_value(toks[0])):
            out[n] = (w, f)
    return out


def update_commands(study, current=None, weight_kind="all"):
    """scontrol update commands that set each node's weight and features at
    once (lost at the next reconfigure: merge() makes them last). current:
    {node: (weight, features)} of the site (live_nodes() or a merged file),
    so its own features are kept"""
    current = current or {}
    cmds = []
    for n, r in sorted(node_classes(study, weight_kind).items()):
        w, f = combined(r, *current.get(n, (None, [])))
        feats = ",".join(f)
        cmds.append("scontrol update NodeName=%s Weight=%d AvailableFeatures=%s ActiveFeatures=%s" % (n, w, feats, feats))
    return cmds


# ---------------------------------------------------------------- drain
def reason_text(text):
    """a drain reason as one safe line: no quote, backslash, dollar, backquote
    or control character; at most REASON_MAX bytes"""
    text = re.sub(r'[\x00-\x1f\x7f"\\$`]', " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text.encode()) <= REASON_MAX else text.encode()[:REASON_MAX - 3].decode("utf-8", "ignore") + "..."


def drain_command(node, reason):
    """the scontrol words that drain NODE with REASON ("mcfleet: ..."), and the line printed"""
    reason = reason_text(reason)
    if not reason.startswith("mcfleet:"):
        reason = "mcfleet: " + reason
    if not re.fullmatch(r"[A-Za-z0-9._\-]+", node):
        raise Bad("node name '%s' is not one Slurm names a node by" % reason_text(node))
    args = ["scontrol", "update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason]
    return args, 'scontrol update NodeName=%s State=DRAIN Reason="%s"' % (node, reason)


def run(args):
    """(what it said, its exit code) of one scontrol command; -1 where it
    could not be run or took over 60 s (export --drain, health --drain)"""
    try:
        p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=60)
        return p.stdout.decode("utf-8", "replace").strip(), p.returncode
    except (OSError, subprocess.SubprocessError) as e:
        return str(e), -1
