/* mcfleet's MFMA register layouts (kernels/hip/mfma_layout.h) against AMD's:
 * tests/data/mfma-layouts/{cdna2,cdna3}.txt, the matrix instruction
 * calculator's tables (written by tools/mfma_layout_tables.py), element by
 * element, for every instruction of kernels/hip/mfma_list.h (the C table of
 * src/run/mfma_insn.c, which the layout self-test uses too).
 *
 * How mcfleet's (lane, v) and (lane, r) become the calculator's (lane, VGPR,
 * bits): load_operand (matrix.hip) packs a lane's KL operand elements low
 * element first into the instruction's `op` type, AB_BITS bits each, and op
 * occupies consecutive VGPRs from the operand's first. So element v sits in
 * VGPR v*AB_BITS/32 at bit (v*AB_BITS)%32 (fp16 x4: v=3 in VGPR 1, bits
 * 16..31); a double is one element in a VGPR pair, named by its low VGPR.
 * Result item r is accumulator vector element r: VGPR r for fp32 / int32
 * items, the pair from VGPR 2r for fp64 items.
 *
 * 2:4 sparse instructions (smfmac, "sparse" in the tables): AMD's A table is
 * over the logical A, each element's cell the bits holding its chunk's kept
 * pair; mcfleet's compressed element v (mfma_layout_sparse_a) sits at bit
 * v*AB_BITS, so the pair of v and v^1 at (v & ~1)*AB_BITS, the first kept
 * value low. The index register (AMD's K table, mfma_layout_sparse_index):
 * lane's nibble q at bits 4q. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mfma_insn.h"
#include "mfma_layout.h"

#define MAX_OPS 64
#define REPORT_MAX 8 /* mismatches printed per instruction and matrix */

/* One instruction of mfma_list.h */
struct op_line {
    char name[64], mnemonic[2][64];
    int m, n, k, blk, bits, dbits, on[2]; /* on[0]: CDNA2, on[1]: CDNA3 */
    int sparse;
    int cycles[2], ops[2];                /* execution cycles, ops per CU per cycle */
};

struct cell {
    int lane, reg, lo;
};

/* One instruction's tables: a[blk][m][k], b[blk][k][n], d[blk][m][n] and,
 * sparse, the index k[blk][m][k] (k the logical k) */
struct table {
    char name[64], calc[64];
    int m, n, k, blk, abits, bbits, dbits, sparse;
    int cycles, ops;                      /* the stats line; -1 where missing */
    struct cell *mat[4];
};

struct arch {
    const char *file, *label;
    struct table t[MAX_OPS];
    int count;
};

struct state {
    struct op_line ops[MAX_OPS];
    int nops;
    struct arch arch[2];
};

typedef void (*operand_fn)(struct mfma_layout, int, int, int *, int *, int *);
typedef void (*result_fn)(struct mfma_layout, int, int, int *, int *, int *);
/* the layout under test: operand (dense A, and B), result, sparse A, sparse index */
struct fns {
    operand_fn op;
    result_fn res;
    operand_fn sa, sidx;
};
static const struct fns mcfleet = { mfma_layout_operand, mfma_layout_result, mfma_layout_sparse_a,
                                    mfma_layout_sparse_index };

static const char *srcdir(void)
{
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

/* The instructions of kernels/hip/mfma_list.h, through the C table */
static int load_ops(struct state *s)
{
    for (int n = 0; n < MCF_MFMA_COUNT; n++) {
        const struct mcf_mfma_insn *in = &mcf_mfma_insns[n];
        struct op_line *o = &s->ops[s->nops++];
        if (s->nops > MAX_OPS) {
            fprintf(stderr, "mfma_list.h: more than %d instructions\n", MAX_OPS);
            return -1;
        }
        *o = (struct op_line){ .m = in->m, .n = in->n, .k = in->k, .blk = in->blk, .bits = in->ab_bits,
                               .dbits = in->dbits, .on = { in->on[0], in->on[1] }, .sparse = in->sparse,
                               .cycles = { in->cycles[0], in->cycles[1] },
                               .ops = { in->ops_per_cu_cycle[0], in->ops_per_cu_cycle[1] } };
        snprintf(o->name, sizeof o->name, "%s", in->name);
        for (int a = 0; a < 2; a++)
            snprintf(o->mnemonic[a], sizeof o->mnemonic[a], "%s", in->mnemonic[a]);
    }
    return s->nops ? 0 : -1;
}

static size_t mat_size(const struct table *t, int x)
{
    return (size_t)t->blk * (x == 0 || x == 3 ? t->m * t->k : x == 1 ? t->k * t->n : t->m * t->n);
}

static int mat_count(const struct table *t) { return t->sparse ? 4 : 3; }

/* One "A|B|D|K BLOCK ROW cells..." line into t */
static int parse_row(struct table *t, char *line, const char *where)
{
    int x = line[0] == 'A' ? 0 : line[0] == 'B' ? 1 : line[0] == 'D' ? 2 : 3;
    int cols = x == 0 || x == 3 ? t->k : t->n, rows = x == 1 ? t->k : t->m;
    if (x == 3 && !t->sparse) {
        fprintf(stderr, "%s: %s: a K (index) row for a dense instruction\n", where, t->name);
        return -1;
    }
    char *save, *tok = strtok_r(line + 1, " \n", &save);
    int blk = tok ? atoi(tok) : -1;
    tok = strtok_r(NULL, " \n", &save);
    int row = tok ? atoi(tok) : -1;
    if (blk < 0 || blk >= t->blk || row < 0 || row >= rows) {
        fprintf(stderr, "%s: %s: block or row out of range\n", where, t->name);
        return -1;
    }
    for (int c = 0; c < cols; c++) {
        struct cell cl;
        tok = strtok_r(NULL, " \n", &save);
        if (!tok || sscanf(tok, "%d:%d:%d", &cl.lane, &cl.reg, &cl.lo) != 3 || cl.lane < 0 || cl.lane > 63) {
            fprintf(stderr, "%s: %s: row %c %d %d: bad or missing cell %d\n", where, t->name, line[0], blk, row, c);
            return -1;
        }
        struct cell *dst = &t->mat[x][((size_t)blk * rows + row) * cols + c];
        if (dst->lane >= 0) {
            fprintf(stderr, "%s: %s: %c %d %d %d given twice\n", where, t->name, line[0], blk, row, c);
            return -1;
        }
        *dst = cl;
    }
    return 0;
}

static int load_arch(struct arch *a)
{
    char path[4096], line[4096];
    snprintf(path, sizeof path, "%s/tests/data/mfma-layouts/%s", srcdir(), a->file);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open (set srcdir)\n", path);
        return -1;
    }
    struct table *t = NULL;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (strncmp(line, "inst ", 5) == 0) {
            if (a->count == MAX_OPS) { rc = -1; break; }
            t = &a->t[a->count++];
            if (sscanf(line, "inst %63s %63s %d %d %d %d %d %d %d", t->name, t->calc, &t->m, &t->n, &t->k, &t->blk,
                       &t->abits, &t->bbits, &t->dbits) != 9 || t->m < 1 || t->n < 1 || t->k < 1 || t->blk < 1) {
                fprintf(stderr, "%s: bad line: %s", path, line);
                rc = -1;
                break;
            }
            t->cycles = t->ops = -1;
            t->sparse = strstr(line, " sparse") != NULL;
            for (int x = 0; x < mat_count(t); x++) {
                t->mat[x] = malloc(mat_size(t, x) * sizeof(struct cell));
                if (!t->mat[x]) { rc = -1; break; }
                for (size_t e = 0; e < mat_size(t, x); e++) t->mat[x][e].lane = -1;
            }
        } else if (t && strncmp(line, "stats ", 6) == 0) {
            if (sscanf(line, "stats %d %d", &t->cycles, &t->ops) != 2 || t->cycles < 1 || t->ops < 1) {
                fprintf(stderr, "%s: %s: bad line: %s", path, t->name, line);
                rc = -1;
            }
        } else if (t && strchr("ABDK", line[0]) && line[1] == ' ') {
            rc = parse_row(t, line, path);
        } else if (strncmp(line, "end", 3) == 0 && t) {
            for (int x = 0; x < mat_count(t) && rc == 0; x++)
                for (size_t e = 0; e < mat_size(t, x); e++)
                    if (t->mat[x][e].lane < 0) {
                        fprintf(stderr, "%s: %s: %c element %zu missing\n", path, t->name, "ABDK"[x], e);
                        rc = -1;
                        break;
                    }
            t = NULL;
        } else {
            fprintf(stderr, "%s: unexpected line: %s", path, line);
            rc = -1;
        }
    }
    fclose(f);
    if (rc == 0 && (t || a->count == 0)) {
        fprintf(stderr, "%s: %s\n", path, t ? "last instruction has no end" : "no instructions");
        rc = -1;
    }
    return rc;
}

static int setup(void **state)
{
    struct state *s = calloc(1, sizeof *s);
    if (!s) return -1;
    s->arch[0].file = "cdna2.txt", s->arch[0].label = "CDNA2";
    s->arch[1].file = "cdna3.txt", s->arch[1].label = "CDNA3";
    *state = s;
    if (load_ops(s) || load_arch(&s->arch[0]) || load_arch(&s->arch[1])) return -1;
    return 0;
}

static int teardown(void **state)
{
    struct state *s = *state;
    for (int a = 0; s && a < 2; a++)
        for (int i = 0; i < s->arch[a].count; i++)
            for (int x = 0; x < 4; x++) free(s->arch[a].t[i].mat[x]);
    free(s);
    return 0;
}

static const struct table *find(const struct arch *a, const char *name)
{
    for (int i = 0; i < a->count; i++)
        if (strcmp(a->t[i].name, name) == 0) return &a->t[i];
    return NULL;
}

static int quiet; /* set while the mutation test runs wrong layouts on purpose */

/* want NULL: mcfleet names an element outside the matrix; got NULL: mcfleet
 * holds AMD's element nowhere. */
static void mismatch(int *n, const char *label, const struct table *t, const char *what, const struct cell *want,
                     const struct cell *got, int bits)
{
    if ((*n)++ >= REPORT_MAX || quiet) return;
    fprintf(stderr, "%s %s (%s): %s: ", label, t->name, t->calc, what);
    if (want)
        fprintf(stderr, "AMD lane %d VGPR %d bits %d..%d, ", want->lane, want->reg, want->lo, want->lo + bits - 1);
    else
        fprintf(stderr, "no such element in AMD's table, ");
    if (got)
        fprintf(stderr, "mcfleet lane %d VGPR %d bits %d..%d\n", got->lane, got->reg, got->lo, got->lo + bits - 1);
    else
        fprintf(stderr, "mcfleet holds it nowhere\n");
}

/* A (x = 0) or B (x = 1) through `fn`: the number of elements that differ. */
static int compare_operand(const char *label, const struct table *t, int x, operand_fn fn)
{
    const struct mfma_layout L = { t->m, t->n, t->k, t->blk, t->dbits };
    const int bits = x == 0 ? t->abits : t->bbits, kl = t->k * t->m * t->blk / 64;
    const int rows = x == 0 ? t->m : t->k, cols = x == 0 ? t->k : t->n;
    char *seen = calloc(mat_size(t, x), 1);
    char what[96];
    int n = 0;
    assert_non_null(seen);
    for (int lane = 0; lane < 64; lane++)
        for (int v = 0; v < kl; v++) {
            int i, kk, b;
            fn(L, lane, v, &i, &kk, &b);
            const struct cell got = { lane, v * bits / 32, v * bits % 32 };
            int row = x == 0 ? i : kk, col = x == 0 ? kk : i;
            if (b < 0 || b >= t->blk || row < 0 || row >= rows || col < 0 || col >= cols) {
                snprintf(what, sizeof what, "%c[%d][%d] of block %d", "AB"[x], row, col, b);
                mismatch(&n, label, t, what, NULL, &got, bits);
                continue;
            }
            size_t e = ((size_t)b * rows + row) * cols + col;
            const struct cell *want = &t->mat[x][e];
            seen[e] = 1;
            snprintf(what, sizeof what, "%c[%s=%d][%s=%d] of block %d", "AB"[x], x == 0 ? "i" : "k", row,
                     x == 0 ? "k" : "j", col, b);
            if (want->lane != got.lane || want->reg != got.reg || want->lo != got.lo)
                mismatch(&n, label, t, what, want, &got, bits);
        }
    for (size_t e = 0; e < mat_size(t, x); e++)
        if (!seen[e]) {
            snprintf(what, sizeof what, "%c element %zu (block-major, row-major)", "AB"[x], e);
            mismatch(&n, label, t, what, &t->mat[x][e], NULL, bits);
        }
    free(seen);
    return n;
}

/* D through `fn`: the number of elements that differ. */
static int compare_result(const char *label, const struct table *t, result_fn fn)
{
    const struct mfma_layout L = { t->m, t->n, t->k, t->blk, t->dbits };
    const int items = t->m * t->n * t->blk / 64;
    char *seen = calloc(mat_size(t, 2), 1);
    char what[96];
    int n = 0;
    assert_non_null(seen);
    for (int lane = 0; lane < 64; lane++)
        for (int r = 0; r < items; r++) {
            int i, j, b;
            fn(L, lane, r, &i, &j, &b);
            const struct cell got = { lane, r * t->dbits / 32, 0 };
            if (b < 0 || b >= t->blk || i < 0 || i >= t->m || j < 0 || j >= t->n) {
                snprintf(what, sizeof what, "D[%d][%d] of block %d", i, j, b);
                mismatch(&n, label, t, what, NULL, &got, t->dbits);
                continue;
            }
            size_t e = ((size_t)b * t->m + i) * t->n + j;
            const struct cell *want = &t->mat[2][e];
            seen[e] = 1;
            snprintf(what, sizeof what, "D[i=%d][j=%d] of block %d", i, j, b);
            if (want->lane != got.lane || want->reg != got.reg || want->lo != got.lo)
                mismatch(&n, label, t, what, want, &got, t->dbits);
        }
    for (size_t e = 0; e < mat_size(t, 2); e++)
        if (!seen[e]) {
            snprintf(what, sizeof what, "D element %zu (block-major, row-major)", e);
            mismatch(&n, label, t, what, &t->mat[2][e], NULL, t->dbits);
        }
    free(seen);
    return n;
}

/* A sparse instruction's compressed A (x = 0) through fn (mfma_layout_sparse_a)
 * or its index register (x = 3, mfma_layout_sparse_index), against AMD's
 * tables over the logical A: every column of a chunk in the cell of its kept
 * pair (A) or of its 4 index bits (K). The number of elements that differ. */
static int compare_sparse(const char *label, const struct table *t, int x, operand_fn fn)
{
    const struct mfma_layout L = { t->m, t->n, t->k, t->blk, t->dbits };
    const int klc = t->k * t->m * t->blk / 128, per_lane = x == 0 ? klc : klc / 2;
    const int bits = x == 0 ? 2 * t->abits : 4;
    char *seen = calloc(mat_size(t, x), 1);
    char what[112];
    int n = 0;
    assert_non_null(seen);
    for (int lane = 0; lane < 64; lane++)
        for (int v = 0; v < per_lane; v++) {
            int i, col, b;
            fn(L, lane, v, &i, &col, &b);
            const int chunk = x == 0 ? col / 2 : col;   /* compressed column, or the chunk itself */
            const int at = x == 0 ? (v & ~1) * t->abits : 4 * v;
            const struct cell got = { lane, at / 32, at % 32 };
            if (b < 0 || b >= t->blk || i < 0 || i >= t->m || chunk < 0 || chunk >= t->k / 4 ||
                (x == 0 && v % 2 != col % 2)) {
                /* out of the matrix, or a pair's second value in its low half */
                snprintf(what, sizeof what, "%s[%d] (element %d) of block %d", x == 0 ? "Ac" : "index", i, col, b);
                mismatch(&n, label, t, what, NULL, &got, bits);
                continue;
            }
            for (int q = 0; q < 4; q++) {
                size_t e = ((size_t)b * t->m + i) * t->k + 4 * chunk + q;
                const struct cell *want = &t->mat[x][e];
                seen[e] = 1;
                snprintf(what, sizeof what, "%c[i=%d][k=%d] of block %d (%s)", "AK"[x == 3], i, 4 * chunk + q, b,
                         x == 0 ? "its chunk's kept pair" : "its chunk's index");
                if (want->lane != got.lane || want->reg != got.reg || want->lo != got.lo)
                    mismatch(&n, label, t, what, want, &got, bits);
            }
        }
    for (size_t e = 0; e < mat_size(t, x); e++)
        if (!seen[e]) {
            snprintf(what, sizeof what, "%c element %zu (block-major, row-major)", "AK"[x == 3], e);
            mismatch(&n, label, t, what, &t->mat[x][e], NULL, bits);
        }
    free(seen);
    return n;
}

static int compare(const char *label, const struct table *t, const struct fns *f)
{
    int a = t->sparse ? compare_sparse(label, t, 0, f->sa) : compare_operand(label, t, 0, f->op);
    int b = compare_operand(label, t, 1, f->op), d = compare_result(label, t, f->res);
    int k = t->sparse ? compare_sparse(label, t, 3, f->sidx) : 0;
    if (a + b + d + k && !quiet)
        fprintf(stderr, "%s %s: %d A, %d B, %d D, %d index elements differ from AMD's table\n", label, t->name, a,
                b, d, k);
    return a + b + d + k;
}

/* Every instruction of mfma_list.h has its table on each architecture it is
 * built for, with the same mnemonic, shape, widths, execution cycles and ops
 * per CU per cycle, and the tables hold
 * nothing else. An instruction absent on an architecture has no mnemonic
 * there. */
static void every_instruction_has_a_table(void **state)
{
    const struct state *s = *state;
    int bad = 0;
    for (int a = 0; a < 2; a++) {
        const struct arch *ar = &s->arch[a];
        int want = 0;
        for (int i = 0; i < s->nops; i++) {
            const struct op_line *o = &s->ops[i];
            if (!o->on[a]) {
                if (o->mnemonic[a][0] || o->cycles[a] || o->ops[a]) {
                    fprintf(stderr, "%s: %s is absent there, yet mfma_list.h names it '%s', %d cycles, %d ops\n",
                            ar->label, o->name, o->mnemonic[a], o->cycles[a], o->ops[a]);
                    bad++;
                }
                continue;
            }
            want++;
            const struct table *t = find(ar, o->name);
            if (!t) {
                fprintf(stderr, "%s: %s (mfma_list.h) has no table in %s\n", ar->label, o->name, ar->file);
                bad++;
            } else if (strcmp(t->calc, o->mnemonic[a]) != 0) {
                fprintf(stderr, "%s %s: mfma_list.h names it %s, AMD's table %s\n", ar->label, o->name,
                        o->mnemonic[a][0] ? o->mnemonic[a] : "\"\"", t->calc);
                bad++;
            } else if (t->sparse != o->sparse) {
                fprintf(stderr, "%s %s: mfma_list.h says %s, AMD's table %s\n", ar->label, o->name,
                        o->sparse ? "sparse" : "dense", t->sparse ? "sparse" : "dense");
                bad++;
            } else if (t->m != o->m || t->n != o->n || t->k != o->k || t->blk != o->blk || t->abits != o->bits ||
                       t->bbits != o->bits || t->dbits != o->dbits) {
                fprintf(stderr,
                        "%s %s: mfma_list.h says %dx%dx%d, %d blocks, %d-bit operands, %d-bit results; AMD's %s "
                        "%dx%dx%d, %d blocks, A %d B %d D %d bits\n",
                        ar->label, o->name, o->m, o->n, o->k, o->blk, o->bits, o->dbits, t->calc, t->m, t->n, t->k,
                        t->blk, t->abits, t->bbits, t->dbits);
                bad++;
            } else if (t->cycles != o->cycles[a] || t->ops != o->ops[a]) {
                /* the instruction's peak and latency: what its figures are judged against */
                fprintf(stderr, "%s %s: mfma_list.h says %d cycles, %d ops/CU/cycle; AMD's calculator %d, %d\n",
                        ar->label, o->name, o->cycles[a], o->ops[a], t->cycles, t->ops);
                bad++;
            }
        }
        if (want != ar->count) {
            fprintf(stderr, "%s: %s has %d instructions, mfma_list.h builds %d there (regenerate it)\n", ar->label,
                    ar->file, ar->count, want);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static void layouts_match(const struct arch *ar)
{
    int bad = 0;
    for (int i = 0; i < ar->count; i++)
        bad += compare(ar->label, &ar->t[i], &mcfleet);
    assert_int_equal(bad, 0);
}

static void cdna2_layouts_match_amd(void **state)
{
    layouts_match(&((struct state *)*state)->arch[0]);
}

static void cdna3_layouts_match_amd(void **state)
{
    layouts_match(&((struct state *)*state)->arch[1]);
}

/* Deliberately wrong layouts, to show the comparison catches a swapped index */
static void operand_i_kk_swapped(struct mfma_layout L, int lane, int v, int *i, int *kk, int *b)
{
    mfma_layout_operand(L, lane, v, kk, i, b);
}

static void operand_lane_div_mod_swapped(struct mfma_layout L, int lane, int v, int *i, int *kk, int *b)
{
    mfma_layout_operand(L, (lane % L.m) * (64 / L.m) + lane / L.m, v, i, kk, b);
}

static void result_i_j_swapped(struct mfma_layout L, int lane, int r, int *i, int *j, int *b)
{
    mfma_layout_result(L, lane, r, j, i, b);
}

/* sparse: A compressed as if it were dense (the logical k), the pair's order
 * swapped, the index nibbles reversed */
static void sparse_a_uncompressed(struct mfma_layout L, int lane, int v, int *i, int *c, int *b)
{
    mfma_layout_operand(L, lane, v, i, c, b);
}

static void sparse_a_pair_swapped(struct mfma_layout L, int lane, int v, int *i, int *c, int *b)
{
    mfma_layout_sparse_a(L, lane, v ^ 1, i, c, b);
}

static void sparse_index_reversed(struct mfma_layout L, int lane, int q, int *i, int *chunk, int *b)
{
    mfma_layout_sparse_index(L, lane, L.k * L.m * L.blk / 256 - 1 - q, i, chunk, b);
}

/* Each mutation is reported, on every instruction of both architectures. */
static void a_wrong_layout_is_caught(void **state)
{
    const struct state *s = *state;
    int missed = 0;
    quiet = 1;
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < s->arch[a].count; i++) {
            const struct table *t = &s->arch[a].t[i];
            const struct {
                const char *what;
                struct fns f;
                int sparse_only;
            } bad[] = {
                { "operand i <-> kk", { operand_i_kk_swapped, mfma_layout_result, mfma_layout_sparse_a,
                                        mfma_layout_sparse_index }, 0 },
                { "operand lane % m <-> lane / m", { operand_lane_div_mod_swapped, mfma_layout_result,
                                                     mfma_layout_sparse_a, mfma_layout_sparse_index }, 0 },
                { "result i <-> j", { mfma_layout_operand, result_i_j_swapped, mfma_layout_sparse_a,
                                      mfma_layout_sparse_index }, 0 },
                { "sparse A not compressed", { mfma_layout_operand, mfma_layout_result, sparse_a_uncompressed,
                                               mfma_layout_sparse_index }, 1 },
                { "sparse A pair swapped", { mfma_layout_operand, mfma_layout_result, sparse_a_pair_swapped,
                                             mfma_layout_sparse_index }, 1 },
                { "sparse index nibbles reversed", { mfma_layout_operand, mfma_layout_result,
                                                     mfma_layout_sparse_a, sparse_index_reversed }, 1 },
            };
            for (size_t m = 0; m < sizeof bad / sizeof bad[0]; m++)
                if ((!bad[m].sparse_only || t->sparse) && compare(s->arch[a].label, t, &bad[m].f) == 0) {
                    fprintf(stderr, "%s %s: the mutation %s went unnoticed\n", s->arch[a].label, t->name, bad[m].what);
                    missed++;
                }
        }
    quiet = 0;
    assert_int_equal(missed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_instruction_has_a_table),
        cmocka_unit_test(cdna2_layouts_match_amd),
        cmocka_unit_test(cdna3_layouts_match_amd),
        cmocka_unit_test(a_wrong_layout_is_caught),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
