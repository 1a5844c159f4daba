#!/usr/bin/env python3
"""Circles between the files of src/: include circles (a header that
includes, through others, itself) and call circles (a file that calls,
through others, a function of its own), each a strongly connected group of
files. The calls are the object files' own symbols (nm: defined and
undefined), so what is checked is what links, not what the text seems to say.

  tools/file-cycles.py SRCDIR BUILDDIR

Prints each circle (its files), and exit 1 where there is one; 0 none."""
import collections
import glob
import os
import re
import subprocess
import sys


def sccs(graph):
    """Tarjan's strongly connected components of {node: set(nodes)}, size > 1"""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def includes(src):
    files = glob.glob(os.path.join(src, "src", "**", "*.[ch]"), recursive=True)
    by_name = collections.defaultdict(list)
    for f in files:
        by_name[os.path.basename(f)].append(f)
    graph = {}
    for f in files:
        deps = set()
        for line in open(f, errors="replace"):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m and len(by_name.get(os.path.basename(m.group(1)), [])) == 1:
                deps.add(by_name[os.path.basename(m.group(1))][0])
        graph[f] = deps
    return graph


def calls(build):
    objs = [o for o in glob.glob(os.path.join(build, "src", "**", "libmcfleet_a-*.o"), recursive=True)]
    defined, used = {}, {}
    for o in objs:
        text = subprocess.run(["nm", o], stdout=subprocess.PIPE, check=True, universal_newlines=True).stdout
        name = re.sub(r"^libmcfleet_a-", "", os.path.basename(o))[:-2] + ".c"
        used[name] = set()
        for line in text.splitlines():
            w = line.split()
            if len(w) == 2 and w[0] == "U":
                used[name].add(w[1])
            elif len(w) == 3 and w[1] in "TDBR":
                defined[w[2]] = name
    return {f: {defined[s] for s in u if s in defined and defined[s] != f} for f, u in used.items()}


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    src, build = argv
    found = 0
    for what, graph in (("include", includes(src)), ("call", calls(build))):
        for comp in sccs(graph):
            found += 1
            print("%s circle: %s" % (what, " <-> ".join(os.path.relpath(c, src) if os.sep in c else c
                                                          for c in comp)))
    if not found:
        print("no include or call circle between the files of src/")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
