"""The statistics of `mcfleet study` (docs/study.md), numpy only, each
deterministic given its seed. Values come in percent (100 ln(value /
median)); nothing here knows what a GPU is.

nested_components  the variance of a nested random-effects model
    y = mu + a_1[level 1 group] + ... + a_L[level L group] + e,
  each a_l drawn with its own variance, fitted by Henderson's method I for
  unbalanced nested designs: T_l = sum over level-l groups of (group sum)^2 /
  size (T of the grand mean: n ybar^2), SS_l = T_l - T_(l-1); its expectation
  is sum_c var_c (k(l, c) - k(l-1, c)) with k(l, c) = n where level c is
  level l or coarser, else sum over l-groups g of (sum over c-groups h in g
  of size_h^2) / size_g. The system is triangular and solved from the
  residual up; an estimate below zero is set to zero (said), and the levels
  above use the truncated value. Unbiased for any balance before truncation.
  A level with one group is dropped; a level whose every group holds one
  group of the next (one GPU per node) cannot be told from it and is merged
  into it ("node+gpu"); both are said. Intervals: generalized pivots from a
  parametric bootstrap: the fitted model simulated on the same design
  (normal effects); a draw's sums of squares over their expectation under the
  fitted model are pivots (chi-square / df when balanced), the observed sums
  over one draw's pivots, solved as above, one plausible set of variances
  (Weerahandi's generalized intervals; exact for the last level of a
  balanced design); percentiles of those. Where an estimate fell below 0
  the pivots can all land on 0; the upper bound is then the larger of
  theirs and the plain bootstrap's (the draws refitted). Plain percentiles
  of re-estimates undercover a level of few groups (82 % for 4 cabinets,
  tests/study_stats.py).
rank_correlation  Spearman's rho (average ranks for ties); interval by
  Fisher's z with the Bonett-Wright standard error sqrt((1 + rho^2/2) /
  (n - 3)); p from z = atanh(rho) sqrt((n - 3) / 1.06) (Fieller, Hartley and
  Pearson), two-sided, normal.
slope  Theil-Sen: the median of the pairwise slopes (a random sample of
  80,000 pairs beyond 400 points), with Sen's interval from the Kendall
  variance (the order statistics at (N -+ z sqrt(Var S)) / 2, scaled to the
  pairs used).
groups_standing_out  each group's mean against the rest's; under random
  relabelling of the units (a permutation test) the group's mean has the
  finite-population mean and variance s^2/k (N-k)/(N-1): p from that normal
  approximation (exact moments, scales to any number of groups), Holm-adjusted
  over the groups; interval from the Welch standard error. Both variances
  times Kish's design effect where the units are clustered below the groups
  (design_effect: a cabinet's nodes in chassis).
trend  Theil-Sen slope of y against t, Kendall's tau and its p (normal, with
  the continuity correction; three points never reach p < 0.05).
icc  one-way random-effects ICC(1) from the ANOVA mean squares with the
  unequal-size n0 = (N - sum n_i^2 / N) / (k - 1), bounded to [0, 1]; interval
  by resampling the groups (cluster bootstrap), none below 5 groups.
classes_1d  exact 1-D k-means by dynamic programming over the sorted, binned
  scores (weights per bin) for k = 1..kmax; k by the Bayesian information
  criterion of a k-component normal mixture with one variance (EM started
  from the k-means partition; 2k parameters), the variance floored at
  noise^2 so that classes finer than a rerun can reproduce gain nothing (the
  classification likelihood of k-means alone grows with every split of a
  unimodal spread, the mixture's does not); then adjacent classes whose centres lie
  closer than 2 x noise (or min_gap, the study's --min-rel: a difference too
  small to matter to a scheduler) are merged (k lowered until none are). One class for
  a fleet whose spread is noise. Before that, scores more than 6 robust
  spreads (1.4826 MAD, at least the noise) below the median are set apart as
  the last class, where they are at most 5 % of the fleet (more are a class
  of their own, found as any other): one broken GPU would otherwise pull the optimal partition
  of everyone else (k-means splits the bulk before it isolates one point). PAL (Sinha et al., SC'24, placement/pal.py)
  picks k by silhouette, which cannot return 1, and its get_optimal_k
  returns inside its loop after the first candidate: always k = 2 plus the
  outliers it counts beforehand.
"""
import math

import numpy as np

Z95 = 1.959963984540054
MIN_GROUPS_CI = 5   # fewer groups: the ICC has no bootstrap interval
MAD_SCALE = 1.4826  # a normal sample's sd per unit of median absolute deviation
OUTLIER_SPREADS = 6.0   # a score this many robust spreads below the median is an outlier, classed apart
OUTLIER_SHARE = 0.05    # ... where such scores are at most this share of the fleet (more are a class)


def relabel(keys):
    """a group id (0, 1, ...) for each of KEYS (integers or strings; objects compared as text)"""
    keys = np.asarray(keys)
    _, inv = np.unique(keys.astype(str) if keys.dtype == object else keys, return_inverse=True)
    return inv.astype(np.int64)


def _structure(levels, names, n):
    """levels relabelled, with the residual appended, the unidentifiable merged"""
    notes = []
    levs = [relabel(g) for g in levels] + [np.arange(n, dtype=np.int64)]
    names = list(names)
    keep_l, keep_n = [], []
    for i, (g, nm) in enumerate(zip(levs, names)):
        count = int(g.max()) + 1 if g.size else 0
        if i < len(levs) - 1 and count == 1:
            notes.append("level %s has one group: no spread of its own, left out" % nm)
            continue
        keep_l.append(g)
        keep_n.append(nm)
    levs, names = [], []
    for i, (g, nm) in enumerate(zip(keep_l, keep_n)):
        if i + 1 < len(keep_l):
            finer = keep_l[i + 1]
            if int(finer.max()) + 1 == int(g.max()) + 1:   # nested and as many groups: the same partition
                notes.append("every %s group holds one %s group: the two cannot be told apart, merged as %s+%s"
                             % (nm, keep_n[i + 1], nm, keep_n[i + 1]))
                keep_n[i + 1] = "%s+%s" % (nm, keep_n[i + 1])
                continue
        levs.append(g)
        names.append(nm)
    return levs, names, notes


def _coefficients(levs, n):
    """K[l, c]: the expectation of SS_l per unit of var_c"""
    L = len(levs)
    sizes = [np.bincount(g).astype(np.float64) for g in levs]
    k = np.zeros((L + 1, L))   # k[l + 1, c]; row 0 the grand mean
    for c in range(L):
        k[0, c] = float((sizes[c] ** 2).sum()) / n
        for l in range(L):
            if c <= l:
                k[l + 1, c] = n
            else:
                first = np.zeros(sizes[c].size, dtype=np.int64)
                first[levs[c]] = levs[l]   # each c-group's l-group (nested: any observation's)
                sq = np.bincount(first, weights=sizes[c] ** 2, minlength=sizes[l].size)
                k[l + 1, c] = float((sq / sizes[l]).sum())
    return k[1:] - k[:-1], sizes


def _sums_of_squares(y, levs, sizes):
    """SS_l of each level, the residual's last (Henderson I's sequential sums)"""
    T = [y.size * y.mean() ** 2]
    for g, s in zip(levs, sizes):
        sums = np.bincount(g, weights=y, minlength=s.size)
        T.append(float((sums ** 2 / s).sum()))
    return np.diff(np.array(T))


def _solve(SS, K):
    """the variances from the sums of squares, from the residual up; a negative set to 0
    and the levels above solved with the 0"""
    L = K.shape[1]
    var = np.zeros(L)
    neg = np.zeros(L, dtype=bool)
    for l in range(L - 1, -1, -1):
        rest = SS[l] - float(np.dot(K[l, l + 1:], var[l + 1:]))
        v = rest / K[l, l] if K[l, l] > 0 else 0.0
        neg[l] = v < 0
        var[l] = max(v, 0.0)
    return var, neg


def nested_components(y, levels, names, n_boot=200, seed=0, level=0.95):
    y = np.asarray(y, dtype=np.float64)
    n = y.size
    levs, names, notes = _structure(levels, names, n)
    K, sizes = _coefficients(levs, n)
    SS = _sums_of_squares(y, levs, sizes)
    var, neg = _solve(SS, K)
    rng = np.random.default_rng(seed)
    boot = np.empty((n_boot, len(levs)))
    plain = np.empty((n_boot, len(levs)))   # the draws refitted: the plain parametric bootstrap
    sd = np.sqrt(var)
    expect = K @ var   # each sum of squares' expectation under the fitted model
    for b in range(n_boot):
        ys = np.zeros(n)
        for g, s, sdl in zip(levs, sizes, sd):
            if sdl > 0:
                ys += sdl * rng.standard_normal(s.size)[g]
        # generalized pivot: a draw's SS over its expectation is (nearly) free of the variances;
        # the observed SS over it is one plausible expectation, solved for the variances
        SSb = _sums_of_squares(ys, levs, sizes)
        piv = np.where(expect > 0, SSb / np.where(expect > 0, expect, 1.0), 1.0)
        boot[b], _ = _solve(SS / np.maximum(piv, 1e-12), K)
        plain[b], _ = _solve(SSb, K)
    lo, hi = 50 * (1 - level), 50 * (1 + level)
    tot = var.sum()
    btot = boot.sum(axis=1, keepdims=True)
    bshare = np.divide(boot, btot, out=np.zeros_like(boot), where=btot > 0)
    ptot = plain.sum(axis=1, keepdims=True)
    pshare = np.divide(plain, ptot, out=np.zeros_like(plain), where=ptot > 0)
    comps = []
    for l, nm in enumerate(names):
        vci = np.percentile(boot[:, l], [lo, hi])
        sci = np.percentile(bshare[:, l], [lo, hi])
        if neg[l]:   # an observed SS below its expectation can collapse the pivots onto 0: not proof of none
            vci[1] = max(vci[1], float(np.percentile(plain[:, l], hi)))
            sci[1] = max(sci[1], float(np.percentile(pshare[:, l], hi)))
        comps.append({"level": nm, "groups": int(sizes[l].size), "var": float(var[l]), "sd": float(sd[l]),
                      "share": float(var[l] / tot) if tot > 0 else 0.0, "var_ci": [float(vci[0]), float(vci[1])],
                      "sd_ci": [float(math.sqrt(vci[0])), float(math.sqrt(vci[1]))],
                      "share_ci": [float(sci[0]), float(sci[1])],
                      "truncated": bool(neg[l])})
        if neg[l]:
            notes.append("the %s component's estimate fell below 0: set to 0 (no spread of its own detected)" % nm)
        if l < len(names) - 1 and sizes[l].size < MIN_GROUPS_CI:
            notes.append("level %s has %d groups: its interval is wide (few groups say little about a spread)"
                         % (nm, sizes[l].size))
    return {"components": comps, "total_var": float(tot), "notes": notes,
            "method": "Henderson's method I (nested, unbalanced), intervals by generalized pivots from a parametric bootstrap "
                      "(%d draws)" % n_boot}


def ranks(x):
    """ranks 1..n, ties given their average rank"""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    r = np.empty(x.size)
    edges = np.flatnonzero(np.diff(xs) != 0) + 1
    starts = np.concatenate([[0], edges])
    ends = np.concatenate([edges, [x.size]])
    avg = (starts + ends + 1) / 2.0
    r[order] = np.repeat(avg, ends - starts)
    return r


def _normal_p(z):
    return math.erfc(abs(z) / math.sqrt(2.0))


def rank_correlation(x, y, n_boot=200, seed=0):
    x, y = np.asarray(x, float), np.asarray(y, float)
    n = x.size
    rx, ry = ranks(x), ranks(y)
    sx, sy = rx.std(), ry.std()
    rho = float(np.mean((rx - rx.mean()) * (ry - ry.mean())) / (sx * sy)) if sx > 0 and sy > 0 else 0.0
    rho = max(-1.0, min(1.0, rho))
    if n <= 3 or abs(rho) >= 1:
        return {"n": int(n), "rho": rho, "rho_ci": [None, None] if n <= 3 else [rho, rho],
                "p": None if n <= 3 else 0.0}
    z = math.atanh(rho)
    se = math.sqrt((1 + rho * rho / 2) / (n - 3))
    p = _normal_p(z * math.sqrt((n - 3) / 1.06))
    return {"n": int(n), "rho": rho, "rho_ci": [math.tanh(z - Z95 * se), math.tanh(z + Z95 * se)], "p": p}


def _pair_slopes(x, y, seed=0, cap=80000):
    n = x.size
    if n * (n - 1) // 2 <= cap:
        i, j = np.triu_indices(n, 1)
    else:
        rng = np.random.default_rng(seed)
        i, j = rng.integers(0, n, cap), rng.integers(0, n, cap)
    dx = x[j] - x[i]
    ok = dx != 0
    return np.sort((y[j] - y[i])[ok] / dx[ok]), n * (n - 1) / 2


def slope(x, y, seed=0):
    x, y = np.asarray(x, float), np.asarray(y, float)
    s, npairs = _pair_slopes(x, y, seed)
    if not s.size:
        return {"slope": 0.0, "slope_ci": [None, None]}
    n = x.size
    c = Z95 * math.sqrt(n * (n - 1) * (2 * n + 5) / 18.0) * s.size / npairs
    lo = int(max(0, math.floor((s.size - c) / 2)))
    hi = int(min(s.size - 1, math.ceil((s.size + c) / 2)))
    return {"slope": float(np.median(s)), "slope_ci": [float(s[lo]), float(s[hi])]}


def design_effect(values, group, sub_levels):
    """Kish's design effect of a group's mean of VALUES whose units are clustered in SUB_LEVELS
    (each nested in GROUP, outermost first): 1 + sum over sub-levels of (m_c - 1) rho_c, rho_c
    the share of the units' within-group variance that level c holds (Henderson I on the
    units), m_c its size-weighted mean cluster size. 1 where the units are not clustered"""
    v = np.asarray(values, float)
    n = v.size
    if n < 3:
        return 1.0
    # the decomposition's own structure: a sub-level that repeats the groups or holds one unit each
    # is merged away; what is left between the groups and the units is the clustering
    levs, _, _ = _structure([group] + list(sub_levels), ["group"] + ["sub"] * len(sub_levels) + ["unit"], n)
    if len(levs) < 3:
        return 1.0
    K, sizes = _coefficients(levs, n)
    var, _ = _solve(_sums_of_squares(v, levs, sizes), K)
    within = float(var[1:].sum())
    if within <= 0:
        return 1.0
    deff = 1.0
    for c in range(1, len(levs) - 1):
        m = float((sizes[c] ** 2).sum()) / n
        deff += (m - 1.0) * var[c] / within
    return float(deff) if np.isfinite(deff) else 1.0   # values near 1e308 overflow: no clustering said


def groups_standing_out(values, group, min_rel, alpha=0.01, seed=0, deff=1.0):
    """each group's mean against the rest's (the module's text); DEFF inflates the variance of
    a group's mean where the units are clustered below the groups (design_effect)"""
    v = np.asarray(values, float)
    g = np.asarray(group)
    names, inv = np.unique(g.astype(str), return_inverse=True)
    N = v.size
    s2 = v.var(ddof=1) if N > 1 else 0.0
    deff = float(deff) if np.isfinite(deff) and deff > 1.0 else 1.0
    out = []
    for i, name in enumerate(names):
        mine = inv == i
        k = int(mine.sum())
        rest = v[~mine]
        if k == 0 or rest.size == 0:
            continue
        dev = float(v[mine].mean() - rest.mean())
        # the group's mean under relabelling: mean of the whole, variance s2/k (N-k)/(N-1)
        sd_perm = math.sqrt(deff * s2 / k * (N - k) / (N - 1)) if N > 1 and s2 > 0 else 0.0
        shift = float(v[mine].mean() - v.mean())
        p = _normal_p(shift / sd_perm) if sd_perm > 0 else (1.0 if shift == 0 else 0.0)
        se = math.sqrt(deff * ((v[mine].var(ddof=1) / k if k > 1 else s2) +
                               (rest.var(ddof=1) / rest.size if rest.size > 1 else s2)))
        out.append({"group": str(name), "n": k, "dev": dev, "ci": [dev - Z95 * se, dev + Z95 * se], "p": p})
    # Holm: the i-th smallest p times (m - i), kept monotone
    order = sorted(range(len(out)), key=lambda j: out[j]["p"])
    m, run = len(out), 0.0
    for rank, j in enumerate(order):
        run = max(run, min(1.0, out[j]["p"] * (m - rank)))
        out[j]["p_adj"] = run
    for r in out:
        r["stands_out"] = bool(r["p_adj"] < alpha and abs(r["dev"]) >= min_rel)
    return out


def trend(t, y):
    t, y = np.asarray(t, float), np.asarray(y, float)
    n = t.size
    sl = slope(t, y)
    i, j = np.triu_indices(n, 1)
    S = float(np.sum(np.sign(t[j] - t[i]) * np.sign(y[j] - y[i])))
    pairs = n * (n - 1) / 2
    var = n * (n - 1) * (2 * n + 5) / 18.0
    z = (abs(S) - 1) / math.sqrt(var) if var > 0 and S != 0 else 0.0
    return {"slope": sl["slope"], "slope_ci": sl["slope_ci"], "tau": S / pairs if pairs else 0.0,
            "p": _normal_p(z) if var > 0 else None}


def _icc_of(sums, sq, sizes):
    k = sizes.size
    N = sizes.sum()
    if k < 2 or N <= k:
        return float("nan")
    grand = sums.sum() / N
    ssb = float((sums ** 2 / sizes).sum() - N * grand ** 2)
    ssw = float(sq.sum() - (sums ** 2 / sizes).sum())
    msb, msw = ssb / (k - 1), ssw / (N - k)
    n0 = (N - (sizes ** 2).sum() / N) / (k - 1)
    den = msb + (n0 - 1) * msw
    return float(min(1.0, max(0.0, (msb - msw) / den))) if den > 0 else float("nan")


def icc(y, groups, n_boot=200, seed=0):
    y = np.asarray(y, float)
    g = relabel(groups)
    sizes = np.bincount(g).astype(float)
    sums = np.bincount(g, weights=y)
    sq = np.bincount(g, weights=y * y)
    est = _icc_of(sums, sq, sizes)
    rng = np.random.default_rng(seed)
    k = sizes.size
    if k < MIN_GROUPS_CI:   # resampling 2 or 3 groups draws the same group again and again: no interval
        return {"icc": est, "ci": [None, None], "groups": int(k), "n": int(y.size)}
    boot = []
    for _ in range(n_boot):
        pick = rng.integers(0, k, k)
        boot.append(_icc_of(sums[pick], sq[pick], sizes[pick]))
    boot = np.array(boot)
    boot = boot[np.isfinite(boot)]
    ci = [float(x) for x in np.percentile(boot, [2.5, 97.5])] if boot.size else [None, None]
    return {"icc": est, "ci": ci, "groups": int(k), "n": int(y.size)}


def _kmeans_dp(x, w, kmax):
    """exact weighted 1-D k-means of sorted x: for each k, (within SS, cluster starts)"""
    m = x.size
    cw = np.concatenate([[0.0], np.cumsum(w)])
    cx = np.concatenate([[0.0], np.cumsum(w * x)])
    cxx = np.concatenate([[0.0], np.cumsum(w * x * x)])

    def cost(j, i):   # clusters x[j..i] inclusive, arrays of j for one i
        ww = cw[i + 1] - cw[j]
        sx = cx[i + 1] - cx[j]
        return (cxx[i + 1] - cxx[j]) - sx * sx / ww

    D = np.full((kmax + 1, m), np.inf)
    B = np.zeros((kmax + 1, m), dtype=np.int64)
    D[1] = cost(np.zeros(m, dtype=np.int64), np.arange(m))
    for k in range(2, kmax + 1):
        for i in range(k - 1, m):
            j = np.arange(k - 1, i + 1)
            c = D[k - 1, j - 1] + cost(j, i)
            b = int(np.argmin(c))
            D[k, i], B[k, i] = c[b], j[b]
    out = {}
    for k in range(1, min(kmax, m) + 1):
        starts, i = [], m - 1
        for kk in range(k, 0, -1):
            s = int(B[kk, i]) if kk > 1 else 0
            starts.append(s)
            i = s - 1
        out[k] = (max(float(D[k, m - 1]), 0.0), starts[::-1])
    return out


def _mixture_bic(x, w, starts, floor, n, iterations=60):
    """BIC of a k-component normal mixture with one variance (floored at
    floor^2), started from the k-means partition and refined by EM on the
    binned scores (weights w): a unimodal spread split in two fits worse than
    one component, unlike the k-means (classification) likelihood"""
    edges = list(starts) + [x.size]
    mu = np.array([np.average(x[a:b], weights=w[a:b]) for a, b in zip(edges[:-1], edges[1:])])
    pi = np.array([w[a:b].sum() for a, b in zip(edges[:-1], edges[1:])]) / w.sum()
    var = max(float(sum((w[a:b] * (x[a:b] - m) ** 2).sum() for a, b, m in zip(edges[:-1], edges[1:], mu)) / w.sum()),
              floor ** 2)
    for _ in range(iterations):
        logp = np.log(pi)[None, :] - 0.5 * (x[:, None] - mu[None, :]) ** 2 / var
        logp -= logp.max(axis=1, keepdims=True)
        r = np.exp(logp)
        r /= r.sum(axis=1, keepdims=True)
        rw = r * w[:, None]
        nk = rw.sum(axis=0)
        keep = nk > 0
        mu, pi, nk, rw = mu[keep], pi[keep], nk[keep], rw[:, keep]
        mu = (rw * x[:, None]).sum(axis=0) / nk
        pi = nk / nk.sum()
        var = max(float((rw * (x[:, None] - mu[None, :]) ** 2).sum() / w.sum()), floor ** 2)
    dens = (pi[None, :] * np.exp(-0.5 * (x[:, None] - mu[None, :]) ** 2 / var)).sum(axis=1) / math.sqrt(2 * math.pi * var)
    ll = float((w * np.log(np.maximum(dens, 1e-300))).sum())
    k = len(starts)
    return -2 * ll + (2 * k) * math.log(max(n, 2))


def classes_1d(scores, noise, kmax=5, min_size=1, min_gap=0.0):
    """classes of the scores (higher is better): the far-low outliers set
    apart first, then the bulk classed (see the module's text); adjacent
    classes closer than max(2 x noise, min_gap) are one"""
    s = np.asarray(scores, float)
    med = float(np.median(s)) if s.size else 0.0
    spread = max(MAD_SCALE * float(np.median(np.abs(s - med))) if s.size else 0.0, float(noise))
    low = s < med - OUTLIER_SPREADS * spread
    if not low.any() or low.sum() > OUTLIER_SHARE * s.size or kmax < 2:   # many: a class, classed as one
        return _classes_bulk(s, noise, kmax, min_gap)
    c = _classes_bulk(s[~low], noise, kmax - 1, min_gap)
    if c["centres"][-1] - float(s[low].mean()) < max(2 * max(float(noise), 1e-6), min_gap):
        # the outliers sit next to the bulk's last class: one class with it
        labels = np.empty(s.size, dtype=np.int64)
        labels[~low] = c["labels"]
        labels[low] = c["k"] - 1
        c["labels"] = labels.tolist()
        c["centres"][-1] = float(s[labels == c["k"] - 1].mean())
        c["rule"] += "; %d far-low GPU%s joined the last class" % (int(low.sum()), "" if low.sum() == 1 else "s")
        return c
    labels = np.empty(s.size, dtype=np.int64)
    labels[~low] = c["labels"]
    labels[low] = c["k"]
    c["labels"] = labels.tolist()
    c["bounds"] = c["bounds"] + [float(s[~low].min())]
    c["centres"] = c["centres"] + [float(s[low].mean())]
    c["k"] += 1
    c["rule"] += ("; %d GPU%s more than %g robust spreads (%.2f %% each, 1.4826 MAD or the noise) below the median "
                  "set apart first as the last class" % (int(low.sum()), "" if low.sum() == 1 else "s",
                                                          OUTLIER_SPREADS, spread))
    return c


def _classes_bulk(scores, noise, kmax, min_gap=0.0):
    s = np.asarray(scores, float)
    n = s.size
    floor = max(float(noise), 1e-6)
    gap = max(2 * floor, float(min_gap))
    res = max(floor / 20, 1e-4)   # bins far finer than the noise: the optimum is the same partition
    binned = np.round(s / res) * res
    x, inv, w = np.unique(binned, return_inverse=True, return_counts=True)
    w = w.astype(float)
    fits = _kmeans_dp(x, w, max(1, min(kmax, x.size)))
    bic = {}
    for k, (W, starts) in fits.items():
        bic[k] = _mixture_bic(x, w, starts, floor, n)
    k = min(bic, key=lambda kk: (bic[kk], kk))
    chosen = k

    def centres_of(kk):
        starts = fits[kk][1] + [x.size]
        return [float(np.average(x[a:b], weights=w[a:b])) for a, b in zip(starts[:-1], starts[1:])], fits[kk][1]

    while k > 1:
        c, _ = centres_of(k)
        if min(np.diff(c)) >= gap:
            break
        k -= 1
    c, starts = centres_of(k)
    bin_label = np.zeros(x.size, dtype=np.int64)
    for i, a in enumerate(starts):
        bin_label[a:] = i
    asc = bin_label[inv]
    labels = (k - 1) - asc   # 0 = the highest scores
    centres = [float(s[asc == i].mean()) for i in range(k)][::-1]
    bounds = [float(x[a]) for a in starts[1:]][::-1]
    why = ("BIC of a normal mixture over the exact 1-D k-means partitions for k = 1..%d (variance floored at the "
           "noise, %.2f %%) chose %d" % (min(kmax, x.size), floor, chosen))
    if k < chosen:
        why += "; classes closer than %.2f %% (twice the noise, or --min-rel) merged to %d" % (gap, k)
    return {"k": int(k), "centres": centres, "labels": labels.tolist(), "bounds": bounds, "rule": why,
            "bic": [bic[kk] for kk in sorted(bic)]}
