"""The links on the page (mcfleet_html.py): per peer test, a heatmap of each
node's GPU-to-GPU matrix (the values written in the cells, the node's worst
cell outlined), and per network test a table of each node's worst pair.
Drawn from the report's own JSON ("links", docs/report.md), so the page and
the text report show the same numbers. Import it after
mcfleet_python.require()."""
import html
import math

import numpy as np
import matplotlib.pyplot as plt
import matplotlib.patches

from mcfleet_plotlib import short

MAX_HEATMAPS = 8      # nodes drawn per peer test, worst first; the others in the table
MAX_TABLE_ROWS = 200  # nodes listed per test


def esc(x):
    return html.escape(str(x))


def number(v):
    """a JSON figure: a float, or NaN for null or anything that is not a number"""
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def worse(latency, a, b):
    """a worse than b (b NaN: any finite a)"""
    if not math.isfinite(a):
        return False
    return not math.isfinite(b) or (a > b if latency else a < b)


def node_worst_value(link, node):
    w = node.get("worst")
    return number(w.get("value")) if isinstance(w, dict) else math.nan


def worst_first(link, nodes):
    """the nodes, the worst figure first, those without one last"""
    lat = link.get("mode") == "latency"
    key = [(node_worst_value(link, n), k) for k, n in enumerate(nodes)]
    finite = sorted((x for x in key if math.isfinite(x[0])), key=lambda x: (-x[0] if lat else x[0], x[1]))
    return [nodes[k] for _, k in finite] + [nodes[k] for v, k in key if not math.isfinite(v)]


def matrix_of(node):
    """the node's matrix as a square float array (NaN: no figure), or None"""
    m = node.get("matrix")
    if not isinstance(m, list) or not m or not all(isinstance(r, list) and len(r) == len(m) for r in m):
        return None
    return np.array([[number(v) for v in r] for r in m], dtype=float)


def gpu_labels(node, n):
    gpus = node.get("gpus") if isinstance(node.get("gpus"), list) else []
    out = []
    for i in range(n):
        g = gpus[i] if i < len(gpus) and isinstance(gpus[i], dict) else {}
        pci = str(g.get("pci_bus_id") or "")
        out.append(short("%d %s" % (i, pci) if pci and pci != "none" else "GPU %d" % i, 24))
    return out


def draw_matrix(link, node):
    """one node's heatmap: the cells' values written in, the worst outlined"""
    m = matrix_of(node)
    n = m.shape[0]
    lat = link.get("mode") == "latency"
    unit = str(link.get("unit", ""))
    size = 1.6 + 0.7 * n
    fig, ax = plt.subplots(figsize=(size + 1.6, size))
    finite = m[np.isfinite(m)]
    cmap = plt.get_cmap("viridis_r" if lat else "viridis").copy()
    cmap.set_bad("#dddddd")
    im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=finite.min() if finite.size else 0,
                   vmax=finite.max() if finite.size else 1)
    fig.colorbar(im, ax=ax, label=short(unit, 20))
    labels = gpu_labels(node, n)
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    ax.set_xticklabels([str(j) for j in range(n)])
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel("peer (local rank)")
    ax.set_ylabel("GPU (local rank, PCI bus)")
    mid = (finite.min() + finite.max()) / 2 if finite.size else 0
    for i in range(n):
        for j in range(n):
            v = m[i, j]
            if math.isfinite(v):
                dark = (v > mid) == lat   # the colour map's dark end: white text
                ax.text(j, i, "%.3g" % v, ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
    w = node.get("worst")
    if isinstance(w, dict) and isinstance(w.get("from_local_rank"), int) and isinstance(w.get("to_local_rank"), int):
        i, j = w["from_local_rank"], w["to_local_rank"]
        if 0 <= i < n and 0 <= j < n:
            ax.add_patch(matplotlib.patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#c62828",
                                                      linewidth=3))
    ax.set_title(short("%s, node %s (%s)" % (link.get("test", "?"), node.get("node", "?"), node.get("host", "")), 60),
                 fontsize=10)
    fig.tight_layout()
    return fig


def peer_section(link, png):
    lat = link.get("mode") == "latency"
    nodes = worst_first(link, [n for n in link.get("nodes", []) if isinstance(n, dict)])
    unit = esc(link.get("unit", ""))
    out = ["<h3>%s (%s, %s)</h3>" % (esc(link.get("test", "?")), unit, "lower is better" if lat else
                                      "higher is better")]
    drawn = 0
    for node in nodes:
        if drawn >= MAX_HEATMAPS:
            break
        if matrix_of(node) is None or not np.isfinite(matrix_of(node)).any():
            continue
        out.append(png(draw_matrix(link, node), "link matrix of node %s" % node.get("node")))
        drawn += 1
    out.append("<table><tr><th>node</th><th>host</th><th>worst link</th><th>%s</th></tr>" % unit)
    for node in nodes[:MAX_TABLE_ROWS]:
        w = node.get("worst") if isinstance(node.get("worst"), dict) else {}
        v = number(w.get("value"))
        pair = ("local rank %s &rarr; %s" % (esc(w.get("from_local_rank")), esc(w.get("to_local_rank")))
                if w else "no figures")
        out.append("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
            esc(node.get("node")), esc(node.get("host", "")), pair, "%.4g" % v if math.isfinite(v) else "-"))
    out.append("</table>")
    if len(nodes) > MAX_TABLE_ROWS:
        out.append("<p>... and %d more nodes (mcfleet report --format links-csv lists all)</p>"
                   % (len(nodes) - MAX_TABLE_ROWS))
    return "\n".join(out)


def network_section(link):
    nodes = worst_first(link, [n for n in link.get("nodes", []) if isinstance(n, dict)])
    unit = esc(link.get("unit", ""))
    out = ["<h3>%s (%s): each node's worst pair</h3>" % (esc(link.get("test", "?")), unit),
           "<table><tr><th>node</th><th>host</th><th>rank</th><th>local rank</th><th>with world rank</th>"
           "<th>on host</th><th>round</th><th>%s</th></tr>" % unit]
    for node in nodes[:MAX_TABLE_ROWS]:
        w = node.get("worst") if isinstance(node.get("worst"), dict) else None
        if w is None:
            out.append("<tr><td>%s</td><td>%s</td><td colspan=6>no figures</td></tr>" % (
                esc(node.get("node")), esc(node.get("host", ""))))
            continue
        v, p = number(w.get("value")), number(w.get("partner_world_rank"))
        out.append("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                   "</tr>" % (esc(node.get("node")), esc(node.get("host", "")), esc(w.get("rank")),
                              esc(w.get("local_rank")), "%d" % p if math.isfinite(p) else "-",
                              esc(w.get("partner_host", "")), esc(w.get("round")),
                              "%.4g" % v if math.isfinite(v) else "-"))
    out.append("</table>")
    if len(nodes) > MAX_TABLE_ROWS:
        out.append("<p>... and %d more nodes (mcfleet report --format links-csv lists all)</p>"
                   % (len(nodes) - MAX_TABLE_ROWS))
    return "\n".join(out)


def links_section(rep, png):
    """the page's section on the links, or None where the report has none;
    png(fig, alt) embeds a figure"""
    links = [x for x in rep.get("links", []) if isinstance(x, dict)]
    peer = [x for x in links if x.get("link") == "peer"]
    net = [x for x in links if x.get("link") == "network"]
    if not peer and not net:
        return None
    out = []
    if peer:
        out.append("<h2>Links between the GPUs of each node</h2><p>Each cell: the GPU of its row (local rank, PCI "
                   "bus) with the peer of its column, the GPU's median over its repetitions; the node's worst "
                   "link outlined in red. Nodes worst first (at most %d drawn per test; the table lists each "
                   "node's worst link).</p>" % MAX_HEATMAPS)
        out += [peer_section(x, png) for x in peer]
    if net:
        out.append("<h2>Network: each node's worst pair</h2><p>The lowest figure (highest latency) of the node's "
                   "ranks over their rounds, and the partner it was measured with; each rank's judged figure is "
                   "its median partner, so a bad card shows on its node with every partner.</p>")
        out += [network_section(x) for x in net]
    return "\n".join(out)
