"""Slurm's side of the exports (docs/operations.md): the study's performance
classes as node Weight and Features, and drain commands, in Slurm's own
syntax. Every node name written here has passed the one node-name rule
(mcfleet_hostlist.check_name), and every line meant for a shell is its
words quoted by shlex (shell_line), so that no byte of data can end it.

Found on Slurm 22.05 (tests/health_slurm.sh proves each on a live cluster):
  - a second NodeName line for a node slurm.conf already defines is fatal:
    `scontrol reconfigure` stops slurmctld with "Duplicated NodeName". Weights
    and features therefore go INTO the site's own NodeName lines: merge()
    rewrites them, splitting a range (n[1-16]) into runs of nodes that share a
    weight and features, each keeping every other key of its line (a per-node
    Port, NodeAddr or NodeHostname list split with it), in the same order.
    Host lists are matched without expanding them (mcfleet_hostlist); only a
    line that holds a node of the study is expanded to be split, within
    HOSTLIST_MAX names, and the file within EXPAND_BUDGET.
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
import math
import re
import shlex
import subprocess

import mcfleet_hostlist as hostlist
from mcfleet_hostlist import Bad, check_name, shown

FEATURE_PREFIX = "mcf_"
WEIGHT_SCALE = 10.0       # weight units per percent of slowdown
WEIGHT_MAX = 9999         # ours stays below SITE_FACTOR
SITE_FACTOR = 10000       # a site's Weight w becomes w * SITE_FACTOR + ours
REASON_MAX = 120          # bytes of a drain reason: Slurm 22.05 took 609, sinfo -R shows 20; NHC prefixes its own
PER_NODE_KEYS = ("nodeaddr", "nodehostname", "port")   # lists that pair with NodeName's nodes, one each
EXPAND_BUDGET = 1 << 20   # names merge() expands in one file, over all the lines it splits
NAME_PART = re.compile(r"[A-Za-z0-9_]+")   # a kind or class name inside a feature


def shell_line(words):
    """WORDS as one shell command line: each word quoted where it needs it"""
    return " ".join(shlex.quote(w) for w in words)


# ---------------------------------------------------------------- classes
def class_slowdowns(kind_block):
    """{class name: slowdown in percent behind the best class}: the study's
    "slowdown" where given, else from the centres (percent of log ratio)"""
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


def node_classes(study, weight_kind="all", where=None):
    """{node: {"weight": int, "features": [mcf_...], "classes": {kind: class}}}
    from the study's classes (the node's class is its slowest GPU's: the
    study's "nodes" per kind). Every node name passes the node-name rule:
    where(node) says where a refused one came from (else "the study")."""
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
        if not NAME_PART.fullmatch(kind):
            raise Bad("the study's class kind '%s' is not a Slurm feature name part (letters, digits, _)"
                      % shown(kind))
        slow = class_slowdowns(block)
        for node, v in block["nodes"].items():
            check_name(node, (lambda n=node: where(n)) if where else "the study's classes.%s.nodes" % kind)
            cls = str(v.get("class", "")) if isinstance(v, dict) else ""
            if not NAME_PART.fullmatch(cls):
                raise Bad("the study's classes.%s.nodes.%s has no usable class name ('%s')"
                          % (kind, node, shown(cls)))
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


def fragment_lines(nodes, weight_kind="all"):
    """NodeName=<n> Weight=<w> Features=<f> per node of NODES (node_classes()):
    for a site whose node definitions do not name these nodes yet (else merge())"""
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


def site_weight_features(toks):
    """(Weight, [Features]) a NodeName line's tokens give (None, [] where absent)"""
    w = next((int(_value(t)) for t in toks[1:] if _key(t) == "weight" and _value(t).isdigit()), None)
    f = next(([x for x in _value(t).split(",") if x] for t in toks[1:] if _key(t) in ("feature", "features")), [])
    return w, f


def conf_lines(conf_text):
    """(first line number, the line with its continuations joined) of a slurm.conf"""
    lines = conf_text.split("\n")
    i = 0
    while i < len(lines):
        start, line = i + 1, lines[i]
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1] + " " + lines[i]
        i += 1
        yield start, line


def node_line(line, where):
    """(tokens, HostList) of a NodeName line, or None for any other line
    (NodeName=DEFAULT included)"""
    toks = _tokens(line.partition("#")[0])
    if not toks or _key(toks[0]) != "nodename" or _value(toks[0]).lower() == "default":
        return None
    return toks, hostlist.parse(_value(toks[0]), where)


def merge(nodes, conf_text, conf_name="--slurm-conf"):
    """conf_text (a slurm.conf, or the file it Includes with the NodeName
    lines) with the weights and features of NODES (node_classes()) merged
    into its NodeName lines. Returns (text, notes): notes name the study's
    nodes the file does not define and lines that could not be split. A host
    list that cannot be read, or that must be split and is too large, is Bad
    naming conf_name:line."""
    ours = hostlist.Names(nodes)
    seen, notes, out = set(), [], []
    budget = [EXPAND_BUDGET]
    for lineno, line in conf_lines(conf_text):
        at = "%s:%d" % (conf_name, lineno)
        parsed = node_line(line, at)
        held = parsed[1].held(ours) if parsed else None
        if not held:
            out.append(line)
            continue
        out.extend(split_line(line, parsed, nodes, at, budget, notes, seen))
    missing = sorted(set(nodes) - seen)
    if missing:
        notes.append("%d node%s of the study not defined by a NodeName line of this file (not written): %s" % (
            len(missing), "" if len(missing) == 1 else "s", hostlist.compress(missing)))
    return "\n".join(out), notes


def _expand(hl, at, budget):
    """HL's names within the per-list limit and what is left of the file's budget"""
    if hl.count() > budget[0]:
        raise Bad("%s: host list '%s' (%d names) would take mcfleet past %d names expanded in one file: "
                  "split the file" % (at, shown(hl.text), hl.count(), EXPAND_BUDGET))
    names = hl.expand()
    budget[0] -= len(names)
    return names


def split_line(line, parsed, nodes, at, budget, notes, seen):
    """one NodeName line holding nodes of the study, as the lines it becomes"""
    toks, hl = parsed
    names = _expand(hl, at, budget)
    for n in names:
        check_name(n, at)   # each name this line writes back
    hash_, comment = line.partition("#")[1:]
    per_node = {}
    for t in toks[1:]:
        k = _key(t)
        if k in PER_NODE_KEYS:
            vals = hostlist.parse_values(_value(t), at)
            if vals.count() == len(names) and len(names) > 1:
                per_node[k] = (t.split("=", 1)[0], _expand(vals, at, budget))
            elif vals.count() != 1:
                notes.append("left as it is: its %s lists %d values for %d nodes: %s" % (
                    t.split("=", 1)[0], vals.count(), len(names), line.strip()))
                return [line]
    rest = [t for t in toks[1:] if _key(t) not in ("weight", "feature", "features") and _key(t) not in per_node]
    site_w, site_f = site_weight_features(toks)
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
    out = ["#" + comment] if hash_ and len(runs) > 1 else []   # the line's comment, above the lines it became
    for (w, f), idx in runs:
        words = ["%s=%s" % (toks[0].split("=", 1)[0], hostlist.compress([names[j] for j in idx]))]
        words += rest
        for k, (spelled, vals) in per_node.items():
            words.append("%s=%s" % (spelled, compress_values([vals[j] for j in idx])))
        if w is not None:
            words.append("Weight=%d" % w)
        if f:
            words.append("Features=%s" % ",".join(f))
        out.append(" ".join(words) + ((" " + hash_ + comment) if hash_ and len(runs) == 1 else ""))
    return out


def compress_values(vals):
    """a per-node list back in slurm.conf syntax: ports as ranges, names as a host list"""
    if all(v.isdigit() for v in vals):
        nums = [int(v) for v in vals]
        if nums == list(range(nums[0], nums[0] + len(nums))):
            return str(nums[0]) if len(nums) == 1 else "%d-%d" % (nums[0], nums[-1])
        return ",".join(vals)
    return hostlist.compress(vals)


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


def conf_nodes(conf_text, names, conf_name="--slurm-conf"):
    """{node: (weight, [features])} for those of NAMES that a NodeName line of
    the slurm.conf defines (host lists matched, not expanded)"""
    ours, out = hostlist.Names(names), {}
    for lineno, line in conf_lines(conf_text):
        parsed = node_line(line, "%s:%d" % (conf_name, lineno))
        if not parsed:
            continue
        site = site_weight_features(parsed[0])
        for n in parsed[1].held(ours):
            out[n] = site
    return out


def update_commands(nodes, current=None):
    """scontrol update commands that set the weight and features of each of
    NODES (node_classes()) at once (lost at the next reconfigure: merge()
    makes them last). current: {node: (weight, features)} of the site
    (live_nodes() or conf_nodes()), so its own features are kept. Each a
    shell line (shell_line)."""
    current = current or {}
    cmds = []
    for n, r in sorted(nodes.items()):
        w, f = combined(r, *current.get(n, (None, [])))
        feats = ",".join(f)
        cmds.append(shell_line(["scontrol", "update", "NodeName=" + n, "Weight=%d" % w,
                                "AvailableFeatures=" + feats, "ActiveFeatures=" + feats]))
    return cmds


# ---------------------------------------------------------------- drain
def reason_text(text):
    """a drain reason as one readable line: no quote, backslash, dollar,
    backquote or control character (they mean nothing to a reader of sinfo
    -R); at most REASON_MAX bytes"""
    text = re.sub(r'[\x00-\x1f\x7f"\'\\$`]', " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    if len(text.encode()) <= REASON_MAX:
        return text
    return text.encode()[:REASON_MAX - 3].decode("utf-8", "ignore") + "..."


def drain_command(node, reason, where="--node"):
    """the scontrol words that drain NODE with REASON ("mcfleet: ..."), and
    the shell line printed; NODE passes the node-name rule (Bad naming WHERE)"""
    check_name(node, where)
    reason = reason_text(reason)
    if not reason.startswith("mcfleet:"):
        reason = "mcfleet: " + reason
    args = ["scontrol", "update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason]
    return args, shell_line(args)


def run(args):
    """(what it said, its exit code) of one scontrol command; -1 where it
    could not be run or took over 60 s (export --drain, health --drain)"""
    try:
        p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=60)
        return p.stdout.decode("utf-8", "replace").strip(), p.returncode
    except (OSError, subprocess.SubprocessError) as e:
        return str(e), -1
