/* The transfer family (family_transfer.h): its rules, work and metrics. */
#include "family_transfer.h"

#include <math.h>
#include <stdio.h>

#include "backend.h"
#include "family.h"
#include "stats.h"

enum mcf_schedule mcf_kernel_schedule(const struct mcf_kernel *k)
{
    if (k->family != MCF_FAMILY_TRANSFER) return MCF_SCHED_EACH;
    return k->link == MCF_LINK_HOST || k->link == MCF_LINK_PEER ? MCF_SCHED_TURNS
                                                                : MCF_SCHED_TOGETHER;
}

double mcf_busbw_factor(enum mcf_collective c, int n)
{
    if (n < 1) return NAN;
    return c == MCF_COLL_ALLREDUCE ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
}

/* A key the link does not take: an error where the deck gave it, else its
 * default (so that "measured" names only what the link measures). */
static const char *not_for(struct mcf_kernel *k, unsigned given, const char *key, uint64_t def,
                           char *why, size_t len)
{
    int i = mcf_family_key_index(MCF_FAMILY_TRANSFER, key);
    if (i >= 0 && (given & (1u << i)))
        return snprintf(why, len, " (transfer) '%s' does not apply to 'link: %s'", key,
                        mcf_link_names[k->link]),
               why;
    if (i >= 0) mcf_key_set(mcf_kernel_key(key), k, def);
    return NULL;
}

const char *mcf_transfer_check(struct mcf_kernel *k, unsigned given, char *why, size_t len)
{
    const char *bad = NULL;
    int host = k->link == MCF_LINK_HOST, peer = k->link == MCF_LINK_PEER,
        coll = k->link == MCF_LINK_COLLECTIVE;
    int net = k->link == MCF_LINK_NETWORK;
    if (!host && (bad = not_for(k, given, "host_memory", MCF_NUMA_LOCAL, why, len))) return bad;
    if (!(host || peer) &&
        ((bad = not_for(k, given, "direction", MCF_DIR_IN, why, len)) ||
         (bad = not_for(k, given, "engine", MCF_ENGINE_COPY, why, len))))
        return bad;
    if (!coll &&
        ((bad = not_for(k, given, "collective", MCF_COLL_ALLREDUCE, why, len)) ||
         (bad = not_for(k, given, "scope", MCF_SCOPE_NODE, why, len))))
        return bad;
    if (!net && (bad = not_for(k, given, "rounds", 4, why, len))) return bad;
    if (k->mode == MCF_MODE_LATENCY) {
        if (!(peer || net))
            return snprintf(why, len,
                            " (transfer) 'mode: latency' is measured on 'link: peer' and 'link: "
                            "network'"),
                   why;
        if (peer && k->direction != MCF_DIR_IN)
            return snprintf(why, len,
                            " (transfer) 'mode: latency' on a peer link reads the peer's memory: "
                            "'direction: in'"),
                   why;
        if (peer && k->engine != MCF_ENGINE_SM)
            return snprintf(why, len,
                            " (transfer) 'mode: latency' on a peer link is a chain of SM loads: "
                            "'engine: sm'"),
                   why;
    }
    if (coll && k->bytes % 1024)
        return snprintf(
                   why, len,
                   " (transfer) a collective's 'bytes' must be a multiple of 1 KiB (split among "
                   "up to 128 ranks of 8-byte elements)"),
               why;
    return NULL;
}

/* bytes one unit (one transfer, one collective, one exchange) moves each way */
double mcf_transfer_bytes(const struct mcf_kernel *k)
{
    return k->mode == MCF_MODE_LATENCY ? 0.0 : (double)k->bytes;
}

static double m_bandwidth(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)i;
    return s->units * mcf_transfer_bytes(k) / s->seconds * 1e-9;
}

static double m_time(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return s->seconds;
}

/* one link's figure: GB/s of `bytes`, or ns per dependent access */
static double link_value(const struct mcf_kernel *k, const struct mcf_sample *s, int j)
{
    if (j >= s->nlinks || !(s->link_seconds[j] > 0)) return NAN;
    return k->mode == MCF_MODE_LATENCY ? s->link_seconds[j] * 1e9
                                       : (double)k->bytes / s->link_seconds[j] * 1e-9;
}

static double m_link(const struct mcf_kernel *k, const struct mcf_sample *s, int j)
{
    return link_value(k, s, j);
}

static double m_partner(const struct mcf_kernel *k, const struct mcf_sample *s, int j)
{
    (void)k;
    return j < s->nlinks && s->link_partner[j] >= 0 ? s->link_partner[j] : NAN;
}

/* the links' figures in v[], their count returned */
static int links(const struct mcf_kernel *k, const struct mcf_sample *s, double *v)
{
    int n = 0;
    for (int j = 0; j < s->nlinks && j < MCF_MAX_PEERS; j++) {
        double x = link_value(k, s, j);
        if (isfinite(x)) v[n++] = x;
    }
    return n;
}

/* peer: the worst link (a dead NVLink is the row's figure); network: the
 * median partner (a bad card is slow with every partner, its partners slow
 * with it alone: the median names the card, worst_* the pair) */
static double m_links_judged(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)i;
    double v[MCF_MAX_PEERS];
    int n = links(k, s, v), lat = k->mode == MCF_MODE_LATENCY;
    if (n == 0) return NAN;
    if (k->link == MCF_LINK_NETWORK) return mcf_median(v, (size_t)n);
    return lat ? mcf_max(v, (size_t)n) : mcf_min(v, (size_t)n);
}

static double m_links_worst(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)i;
    double v[MCF_MAX_PEERS];
    int n = links(k, s, v);
    if (n == 0) return NAN;
    return k->mode == MCF_MODE_LATENCY ? mcf_max(v, (size_t)n) : mcf_min(v, (size_t)n);
}

static double m_algbw(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)i;
    return s->units * (double)k->bytes / s->seconds * 1e-9;
}

static double m_busbw(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    return m_algbw(k, s, i) * mcf_busbw_factor(k->collective, s->coll_ranks);
}

int mcf_transfer_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out, int max)
{
    (void)caps;
    int n = 0, lat = k->mode == MCF_MODE_LATENCY, dir = lat ? MCF_METRIC_LOWER : MCF_METRIC_HIGHER;
    const char *unit = lat ? "ns" : "GB/s", *judged = lat ? "latency_ns" : "bandwidth_gbs";
    char name[32];
    switch (k->link) {
    case MCF_LINK_HOST:
        n = mcf_metric_add(out, n, max, "bandwidth_gbs", "GB/s", m_bandwidth, 0,
                           MCF_METRIC_SUMMARY | MCF_METRIC_HIGHER);
        break;
    case MCF_LINK_COLLECTIVE:
        n = mcf_metric_add(out, n, max, "busbw_gbs", "GB/s", m_busbw, 0,
                           MCF_METRIC_SUMMARY | MCF_METRIC_HIGHER);
        n = mcf_metric_add(out, n, max, "algbw_gbs", "GB/s", m_algbw, 0, MCF_METRIC_DETAIL);
        break;
    case MCF_LINK_PEER:
    case MCF_LINK_NETWORK: {
        int peer = k->link == MCF_LINK_PEER;
        /* every rank records every slot (the same metrics on every rank); a
         * slot without a link (itself, a smaller node, a round sat out) is NaN */
        /* a network rank that no round pairs (nodes of unequal sizes) has none */
        n = mcf_metric_add(
            out, n, max, judged, unit, m_links_judged, 0,
            dir | (peer ? MCF_METRIC_SUMMARY : MCF_METRIC_SUMMARY | MCF_METRIC_OPTIONAL));
        if (!peer) {
            snprintf(name, sizeof name, "worst_%s", lat ? "ns" : "gbs");
            n = mcf_metric_add(out, n, max, name, unit, m_links_worst, 0,
                               MCF_METRIC_DETAIL | MCF_METRIC_OPTIONAL);
        }
        int slots = peer ? MCF_MAX_PEERS : k->rounds < MCF_MAX_PEERS ? k->rounds : MCF_MAX_PEERS;
        for (int j = 0; j < slots; j++) {
            snprintf(name, sizeof name, "%s%d_%s", peer ? "peer" : "round", j, lat ? "ns" : "gbs");
            n = mcf_metric_add(out, n, max, name, unit, m_link, j,
                               MCF_METRIC_DETAIL | MCF_METRIC_OPTIONAL);
            if (!peer) {
                snprintf(name, sizeof name, "round%d_partner", j);
                n = mcf_metric_add(out, n, max, name, "rank", m_partner, j,
                                   MCF_METRIC_DETAIL | MCF_METRIC_OPTIONAL);
            }
        }
        break;
    }
    default: break;
    }
    return mcf_metric_add(out, n, max, "time_s", "s", m_time, 0, MCF_METRIC_DETAIL);
}

static void size_text(uint64_t b, char *buf, size_t len)
{
    if (b >= (1ull << 30) && b % (1ull << 30) == 0)
        snprintf(buf, len, "%lluGiB", (unsigned long long)(b >> 30));
    else if (b >= (1ull << 20) && b % (1ull << 20) == 0)
        snprintf(buf, len, "%lluMiB", (unsigned long long)(b >> 20));
    else if (b % 1024 == 0)
        snprintf(buf, len, "%lluKiB", (unsigned long long)(b >> 10));
    else
        snprintf(buf, len, "%lluB", (unsigned long long)b);
}

void mcf_transfer_label(const struct mcf_kernel *k, char *buf, size_t len)
{
    char b[32];
    size_text(k->bytes, b, sizeof b);
    const char *lat = k->mode == MCF_MODE_LATENCY ? " latency" : "";
    switch (k->link) {
    case MCF_LINK_HOST:
        snprintf(buf, len, "transfer host %s %s %s-memory %s", mcf_direction_names[k->direction],
                 mcf_engine_names[k->engine], mcf_numa_names[k->host_memory], b);
        break;
    case MCF_LINK_PEER:
        snprintf(buf, len, "transfer peer %s %s%s %s", mcf_direction_names[k->direction],
                 mcf_engine_names[k->engine], lat, b);
        break;
    case MCF_LINK_COLLECTIVE:
        snprintf(buf, len, "transfer %s %s %s", mcf_collective_names[k->collective],
                 mcf_scope_names[k->scope], b);
        break;
    default:
        snprintf(buf, len, "transfer network%s %s, %d rounds", lat,
                 k->mode == MCF_MODE_LATENCY ? "8B" : b, k->rounds);
        break;
    }
}
