/* A stand-in for libhipblaslt.so, written from the declarations in
 * src/blas/vendor_amdblas.h (AMD's hipblaslt.h): handles are host objects
 * and hipblasLtMatmul multiplies host fp32 / fp64 matrices itself (A
 * transposed or not, as the descriptor says), so tests/test_amd_blas.c runs
 * the layer's whole sequence without a GPU. Scripted by the environment:
 * STUB_HIPBLASLT_VERSION (hipblasLtGetVersion's number, default 1100:
 * 0.11.0), STUB_HIPBLASLT_FAIL=NAME=STATUS (that function returns STATUS),
 * STUB_HIPBLASLT_NOALGO (the heuristic finds none). What the layer passed is
 * read back through stub_hipblaslt_seen(). Built with -DSTUB_NO_MATMUL it
 * lacks hipblasLtMatmul, a library the layer must refuse. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct desc { int compute, scale, ta, tb; };
struct layout { int type; uint64_t rows, cols; int64_t ld; };
struct algo { uint8_t data[16]; size_t max_workspace_bytes; };
struct heur { struct algo algo; size_t workspace_size; int state; float waves; int reserved[4]; };

static int live, last_compute, last_scale, last_ta, last_tb, last_ab, last_cd, calls;
static uint64_t last_ws;

static int fail(const char *fn)
{
    const char *f = getenv("STUB_HIPBLASLT_FAIL");
    size_t n = strlen(fn);
    if (f && strncmp(f, fn, n) == 0 && f[n] == '=')
        return atoi(f + n + 1);
    return 0;
}
#define FAIL_IF(fn) do { int st_ = fail(fn); if (st_) return st_; } while (0)

int stub_hipblaslt_seen(const char *what)
{
    if (!strcmp(what, "live")) return live;
    if (!strcmp(what, "compute")) return last_compute;
    if (!strcmp(what, "scale")) return last_scale;
    if (!strcmp(what, "transa")) return last_ta;
    if (!strcmp(what, "transb")) return last_tb;
    if (!strcmp(what, "ab")) return last_ab;
    if (!strcmp(what, "cd")) return last_cd;
    if (!strcmp(what, "workspace")) return (int)last_ws;
    if (!strcmp(what, "calls")) return calls;
    return -1;
}

static void *obj(size_t bytes) { live++; return calloc(1, bytes); }
static int drop(void *p) { if (!p) return 3; live--; free(p); return 0; }

int hipblasLtCreate(void **h) { FAIL_IF("hipblasLtCreate"); *h = obj(8); return 0; }
int hipblasLtDestroy(void *h) { return drop(h); }
int hipblasLtGetVersion(void *h, int *v)
{
    const char *s = getenv("STUB_HIPBLASLT_VERSION");
    FAIL_IF("hipblasLtGetVersion");
    if (!h) return 1;
    *v = s ? atoi(s) : 1100;
    return 0;
}
int hipblasLtMatmulDescCreate(void **d, int compute, int scale)
{
    FAIL_IF("hipblasLtMatmulDescCreate");
    struct desc *p = obj(sizeof *p);
    p->compute = last_compute = compute;
    p->scale = last_scale = scale;
    p->ta = p->tb = 111;
    *d = p;
    return 0;
}
int hipblasLtMatmulDescDestroy(void *d) { return drop(d); }
int hipblasLtMatmulDescSetAttribute(void *d, int attr, const void *buf, size_t bytes)
{
    struct desc *p = d;
    FAIL_IF("hipblasLtMatmulDescSetAttribute");
    if (bytes != sizeof(int32_t) || (attr != 0 && attr != 1)) return 3;
    if (attr == 0) p->ta = last_ta = *(const int32_t *)buf;
    else p->tb = last_tb = *(const int32_t *)buf;
    return 0;
}
int hipblasLtMatrixLayoutCreate(void **l, int type, uint64_t rows, uint64_t cols, int64_t ld)
{
    FAIL_IF("hipblasLtMatrixLayoutCreate");
    struct layout *p = obj(sizeof *p);
    *p = (struct layout){ type, rows, cols, ld };
    *l = p;
    return 0;
}
int hipblasLtMatrixLayoutDestroy(void *l) { return drop(l); }
int hipblasLtMatmulPreferenceCreate(void **p) { FAIL_IF("hipblasLtMatmulPreferenceCreate"); *p = obj(8); return 0; }
int hipblasLtMatmulPreferenceDestroy(void *p) { return drop(p); }
int hipblasLtMatmulPreferenceSetAttribute(void *p, int attr, const void *buf, size_t bytes)
{
    (void)p;
    if (attr != 1 || bytes != sizeof(uint64_t)) return 3;
    last_ws = *(const uint64_t *)buf;
    return 0;
}
int hipblasLtMatmulAlgoGetHeuristic(void *h, void *op, void *a, void *b, void *c, void *d, void *pref, int req,
                                    struct heur *res, int *found)
{
    const struct layout *la = a, *ld = d;
    (void)h; (void)op; (void)b; (void)c; (void)pref;
    FAIL_IF("hipblasLtMatmulAlgoGetHeuristic");
    last_ab = la->type;
    last_cd = ld->type;
    *found = 0;
    if (req < 1 || getenv("STUB_HIPBLASLT_NOALGO"))
        return 0;
    memset(res, 0, sizeof *res);
    res->algo.data[0] = 42;       /* hipblasLtMatmul checks it came back */
    res->waves = 1.0f;
    *found = 1;
    return 0;
}
#ifndef STUB_NO_MATMUL
#define MUL(T)                                                                                         \
    for (uint64_t j = 0; j < n; j++)                                                                   \
        for (uint64_t i = 0; i < n; i++) {                                                             \
            T s = 0;                                                                                   \
            for (uint64_t p = 0; p < n; p++)                                                           \
                s += (op->ta == 112 ? ((const T *)A)[i * n + p] : ((const T *)A)[p * n + i]) *         \
                     ((const T *)B)[j * n + p];                                                        \
            ((T *)D)[j * n + i] = *(const T *)alpha * s + *(const T *)beta * ((const T *)C)[j * n + i]; \
        }
int hipblasLtMatmul(void *h, void *desc, const void *alpha, const void *A, void *la, const void *B, void *lb,
                    const void *beta, const void *C, void *lc, void *D, void *ld, const struct algo *algo, void *ws,
                    size_t ws_bytes, void *stream)
{
    const struct desc *op = desc;
    const struct layout *a = la;
    uint64_t n = a->rows;
    (void)h; (void)lb; (void)lc; (void)ld; (void)ws; (void)ws_bytes; (void)stream;
    FAIL_IF("hipblasLtMatmul");
    if (!algo || algo->data[0] != 42) return 3;
    calls++;
    if (a->type == 0) { MUL(float) }
    else if (a->type == 1) { MUL(double) }
    return 0;
}
#endif
