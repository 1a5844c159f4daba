"""Node names and Slurm host lists: the one rule for every name mcfleet hands
to Slurm or to a shell (export's slurm.conf lines, scontrol update commands
and drain lines, health's drain, the study's nodes, the per-node Prometheus
files), and host lists read without expanding them (docs/operations.md,
"Node names").

A node name is 1 to NAME_MAX (64) ASCII letters, digits, '.', '_' and '-',
starting with a letter or a digit, and not Slurm's reserved DEFAULT or ALL
(any case). That is what Slurm's host lists read as one name (they split at
',' and '[', and stop at MAXHOSTNAMELEN, 64) and what a shell reads as one
word with nothing to expand: no byte of such a name can end a command, open
a comment, add a slurm.conf key or a line. Anything else is refused (exit
2) with the file, line or option it came from.

A host list ('nid[000001-009408]', 'x1000c[0-7]s[0-7]b[0-1]n[0-1]',
'n1,n[3-5]') is parsed into items of literal text and bracketed ranges, and
asked questions without being expanded: how many names it holds (a
product), whether a name is one of them and where (index()). Only a list
that must be written back split (a NodeName line holding a node of the
study) is expanded, and never past HOSTLIST_MAX (65536) names, Slurm's own
limit for one range (MAX_RANGE in its hostlist.c): a 32-byte
'NodeName=node[0-99999999]' is refused at once, naming its line, instead of
taking 14 GB.
"""
import bisect
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcfleet_text import show  # noqa: E402

NAME_MAX = 64             # bytes of a node name: Slurm's MAXHOSTNAMELEN, Linux's HOST_NAME_MAX
HOSTLIST_MAX = 65536      # names of a range, and of a list mcfleet expands: Slurm's MAX_RANGE
RESERVED = ("default", "all")   # NodeName=DEFAULT sets every node's defaults; ALL names every node
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_LITERAL = re.compile(r"[A-Za-z0-9._-]+")


class Bad(Exception):
    """a name or host list refused (exit 2); the message names where it came from"""


def shown(name, n=80):
    """a name as a message prints it: show()'s one printable line, at most N characters"""
    text = show(str(name))
    return text if len(text) <= n else text[:n] + "... (%d characters)" % len(text)


def name_problem(name):
    """why NAME is not a node name (None where it is one)"""
    if not isinstance(name, str) or not name:
        return "it is empty"
    bad = next((c for c in name if not (c.isascii() and (c.isalnum() or c in "._-"))), None)
    if bad is not None:
        what = {"\n": "a newline", "\r": "a carriage return", "\t": "a tab",
                " ": "a space"}.get(bad)
        if what is None:
            what = "'%s'" % bad if bad.isprintable() and bad.isascii() else \
                "the character U+%04X" % ord(bad)
        return "it holds %s" % what
    if len(name) > NAME_MAX:
        return "it is %d characters long (at most %d)" % (len(name), NAME_MAX)
    if not NAME_RE.fullmatch(name):
        return "it starts with '%s'" % name[0]
    if name.lower() in RESERVED:
        return "%s is Slurm's reserved word" % name
    return None


RULE = ("a node name is 1 to %d ASCII letters, digits, '.', '_' or '-', starting with a "
        "letter or digit" % NAME_MAX)


def check_name(name, where):
    """NAME, or Bad naming WHERE (a 'file:line', an option; or a function
    that says it, called only for a name refused) and why"""
    why = name_problem(name)
    if why:
        raise Bad("%s: node name '%s' refused: %s (%s; docs/operations.md)"
                  % (where() if callable(where) else where, shown(name), why, RULE))
    return name


# ---------------------------------------------------------------- parsing
class HostList:
    """a parsed host list: items, each a list of segments ('lit', text) or
    ('rng', [(lo, hi, width)...], count); the names of an item run in the
    order Slurm expands them (the first bracket outermost)"""

    def __init__(self, text, where):
        self.text, self.where = text, where
        self.items = [self._item(t) for t in _split_top(text, where)]
        self.counts = [_product(segs) for segs in self.items]
        self.literal = {}   # items without brackets: name -> index
        offset = 0
        for segs, n in zip(self.items, self.counts):
            if len(segs) == 1 and segs[0][0] == "lit":
                self.literal.setdefault(segs[0][1], offset)
            offset += n

    def _item(self, text):
        segs, pos = [], 0
        while pos < len(text):
            if text[pos] == "[":
                end = text.find("]", pos)
                if end < 0:
                    raise Bad("%s: host list '%s': '[' without ']'"
                              % (self.where, shown(self.text)))
                spans = [_span(s, self) for s in text[pos + 1:end].split(",")]
                segs.append(("rng", spans, sum(hi - lo + 1 for lo, hi, _ in spans)))
                pos = end + 1
                continue
            m = _LITERAL.match(text, pos)
            if not m:
                raise Bad("%s: host list '%s': '%s' is not part of a node name or a range"
                          % (self.where, shown(self.text), shown(text[pos])))
            segs.append(("lit", m.group(0)))
            pos = m.end()
        return segs

    def count(self):
        """how many names the list holds (never expanding it)"""
        return sum(self.counts)

    def index(self, name):
        """NAME's place in the list's order, or None where it is not one of its names"""
        if name in self.literal:
            return self.literal[name]
        offset = 0
        for segs, n in zip(self.items, self.counts):
            if len(segs) > 1 or segs[0][0] == "rng":
                i = _index_in(segs, name)
                if i is not None:
                    return offset + i
            offset += n
        return None

    def expand(self, limit=HOSTLIST_MAX):
        """the names, in order; Bad where they would be more than LIMIT"""
        n = self.count()
        if n > limit:
            raise Bad("%s: host list '%s' names %d nodes, more than mcfleet expands (%d): "
                      "split the line" % (self.where, shown(self.text), n, limit))
        return [name for segs in self.items for name in _item_names(segs)]

    def held(self, names):
        """{each of NAMES (a Names) this list holds: its index here}, found
        without expanding the list: an item is expanded only where it has
        fewer names than NAMES has candidates for it (those sharing its
        literal start), else each candidate is placed in it (_index_in)"""
        found, offset = {}, 0
        for segs, n in zip(self.items, self.counts):
            if len(segs) == 1 and segs[0][0] == "lit":
                if segs[0][1] in names.set:
                    found.setdefault(segs[0][1], offset)
            else:
                cands = names.with_prefix(segs[0][1] if segs[0][0] == "lit" else "")
                if n <= len(cands):
                    for j, name in enumerate(_item_names(segs)):
                        if name in names.set:
                            found.setdefault(name, offset + j)
                else:
                    for name in cands:
                        j = _index_in(segs, name)
                        if j is not None:
                            found.setdefault(name, offset + j)
            offset += n
        return found


class Names:
    """a set of node names, sorted, for HostList.held"""

    def __init__(self, names):
        self.set = set(names)
        self.sorted = sorted(self.set)

    def with_prefix(self, prefix):
        i = bisect.bisect_left(self.sorted, prefix)
        j = bisect.bisect_left(self.sorted, prefix + "\U0010ffff")
        return self.sorted[i:j]


def parse(text, where):
    """TEXT (quotes around it dropped) as a HostList; a port list
    ('17001-17016') too: each number a name"""
    return HostList(text.strip().strip('"'), where)


def _split_top(text, where):
    """TEXT split at commas outside brackets; an empty item is refused"""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if depth < 0 or depth > 1:
            raise Bad("%s: host list '%s': brackets do not pair" % (where, shown(text)))
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    if depth or any(not x for x in out):
        raise Bad("%s: host list '%s': %s"
                  % (where, shown(text), "'[' without ']'" if depth else "an empty name"))
    return out


def _span(text, hl):
    """'3', '1-16' or '001-128' as (lo, hi, width): width the zero-padded digits, else 0"""
    lo, dash, hi = text.partition("-")
    if not lo.isdigit() or not lo.isascii() or (dash and not (hi.isdigit() and hi.isascii())):
        raise Bad("%s: host list '%s': '[%s]' is not a range of numbers"
                  % (hl.where, shown(hl.text), shown(text)))
    a, b = int(lo), int(hi) if dash else int(lo)
    if b < a:
        raise Bad("%s: host list '%s': range %s runs backwards"
                  % (hl.where, shown(hl.text), shown(text)))
    if b - a + 1 > HOSTLIST_MAX:
        raise Bad("%s: host list '%s': range %s holds %d names; Slurm refuses a range of more "
                  "than %d" % (hl.where, shown(hl.text), shown(text), b - a + 1, HOSTLIST_MAX))
    return a, b, len(lo) if lo.startswith("0") and len(lo) > 1 else 0


def _fmt(v, width):
    return "%0*d" % (width, v) if width else str(v)


def _item_names(segs):
    """one item's names, in Slurm's order (the first bracket outermost)"""
    names = [""]
    for seg in segs:
        if seg[0] == "lit":
            names = [x + seg[1] for x in names]
        else:
            names = [x + _fmt(v, w) for x in names
                     for lo, hi, w in seg[1] for v in range(lo, hi + 1)]
    return names


def _product(segs):
    n = 1
    for seg in segs:
        if seg[0] == "rng":
            n *= seg[2]
    return n


def _index_in(segs, name):
    """NAME's index among one item's names, or None: a walk over the segments
    that tries each split of a run of digits between adjacent ranges,
    remembered per (segment, position) so that no list makes it slow"""
    radix = [1] * (len(segs) + 1)   # radix[i]: names of the segments after i
    for i in range(len(segs) - 1, -1, -1):
        radix[i] = radix[i + 1] * (segs[i][2] if segs[i][0] == "rng" else 1)
    memo = {}

    def walk(i, pos):
        if i == len(segs):
            return 0 if pos == len(name) else None
        key = (i, pos)
        if key in memo:
            return memo[key]
        seg, got = segs[i], None
        if seg[0] == "lit":
            if name.startswith(seg[1], pos):
                got = walk(i + 1, pos + len(seg[1]))
        else:
            end = pos
            while end < len(name) and "0" <= name[end] <= "9":
                end += 1
            for stop in range(pos + 1, end + 1):
                p = _place(seg[1], name[pos:stop])
                if p is not None:
                    rest = walk(i + 1, stop)
                    if rest is not None:
                        got = p * radix[i + 1] + rest
                        break
        memo[key] = got
        return got

    return walk(0, 0)


def _place(spans, digits):
    """where DIGITS falls in a bracket's spans (its index there), or None"""
    offset = 0
    v = int(digits)
    for lo, hi, width in spans:
        fits = len(digits) == width if width else (digits == "0" or digits[0] != "0")
        if fits and lo <= v <= hi:
            return offset + v - lo
        offset += hi - lo + 1
    return None


def compress(names):
    """names (in their order) as a host list that expands to the same order:
    consecutive names of one prefix, suffix and padding share a bracket"""
    groups = []
    for name in names:
        m = re.fullmatch(r"(.*?)(\d+)(\D*)", name)
        padded = m and m.group(2).startswith("0") and len(m.group(2)) > 1
        key = (m.group(1), m.group(3), len(m.group(2)) if padded else 0) if m else (name, None, 0)
        if m and groups and groups[-1][0] == key:
            groups[-1][1].append(int(m.group(2)))
        else:
            groups.append((key, [int(m.group(2))] if m else []))
    out = []
    for (prefix, suffix, width), nums in groups:
        if suffix is None:
            out.append(prefix)
            continue
        spans, start = [], 0
        for i in range(1, len(nums) + 1):
            if i == len(nums) or nums[i] != nums[i - 1] + 1:
                a, b = nums[start], nums[i - 1]
                spans.append(_fmt(a, width) if a == b
                             else "%s-%s" % (_fmt(a, width), _fmt(b, width)))
                start = i
        body = spans[0] if len(nums) == 1 else "[%s]" % ",".join(spans)
        out.append(prefix + body + suffix)
    return ",".join(out)


def parse_values(text, where):
    """a per-node list of a NodeName line: a port list ('17001-17016,17020',
    each number one value) or a host list (NodeAddr, NodeHostname)"""
    text = text.strip().strip('"')
    if re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", text):
        return HostList("[%s]" % text, where)
    return HostList(text, where)
