#include "selftest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "error.h"
#include "layout_inject.h"
#include "mcfleet.h"
#include "mfma_selftest.h"
#include "numparse.h"

struct selftest_opts {
    const char *backend; /* "auto", "host", "hip", ... */
    int device; /* -1: every device */
    int gens[2], ngens; /* --arch: the CDNA generations the host emulates */
    int help;
};

/* What one block of lines (a device, or one generation the host plays) counted */
struct tally {
    int ok, bad, absent, injected; /* injected: instructions MCFLEET_INJECT_LAYOUT changed */
};

void mcf_selftest_usage(FILE *out)
{
    fprintf(out,
            "Usage: mcfleet selftest [--backend auto|host|hip] [--device N] [--arch gfx90a|gfx942] "
            "[--help]\n"
            "\n"
            "The MFMA register-layout self-test: every MFMA instruction mcfleet uses is\n"
            "issued once by one wavefront, from a zero accumulator, on small-integer inputs\n"
            "that differ per block and element; each lane's raw result registers are\n"
            "decoded with mcfleet's layout (kernels/hip/mfma_layout.h) and compared with\n"
            "the product computed exactly on the host. One line per instruction: ok, or\n"
            "the first mismatch with its lane and register and where the expected value\n"
            "is instead; instructions the GPU lacks are 'absent on this GPU'. No MPI.\n"
            "\n"
            "Options:\n"
            "  --backend NAME   auto (default: hip where it sees a GPU, else host), hip or\n"
            "                   host. The host backend plays the matrix unit with the same\n"
            "                   layout, which tests the comparison, not a GPU\n"
            "  --device N       only device N (default: every device the backend sees)\n"
            "  --arch GFX       host only: the generation to emulate, gfx90a (CDNA2) or\n"
            "                   gfx942 (CDNA3; gfx940, gfx941 alike). Default: both\n"
            "  -h, --help       this text\n"
            "\n"
            "MCFLEET_INJECT_LAYOUT=GLOB:LANE:REG adds 1 to register REG (a[REG]; fp64:\n"
            "a[2REG:2REG+1]) of lane LANE after the instructions matching GLOB ran, to\n"
            "test the self-test itself; the output says so.\n"
            "\n"
            "Exit status: 0 every instruction the device has is ok; 1 a mismatch (a wrong\n"
            "layout or a wrong result: send the MISMATCH line and the device header, see\n"
            "docs/amd.md); 2 usage (a bad option, a backend without the self-test, or an\n"
            "MCFLEET_INJECT_LAYOUT that is malformed or injected nothing); 3 runtime (no\n"
            "device, a failed GPU call, a backend not built into this mcfleet).\n");
}

static int parse_arch(const char *a, struct selftest_opts *o, struct mcf_err *e)
{
    int gen = mcf_mfma_generation(a);
    if (!gen || strlen(a) != 6)
        return mcf_err_set(
            e, MCF_EINPUT, __FILE__, __LINE__,
            "--arch: '%.64s' is not a CDNA target (gfx90a, gfx940, gfx941 or gfx942)", a);
    for (int g = 0; g < o->ngens; g++)
        if (o->gens[g] == gen) return MCF_OK;
    o->gens[o->ngens++] = gen;
    return MCF_OK;
}

static int parse(int argc, char **argv, struct selftest_opts *o, struct mcf_err *e)
{
    *o = (struct selftest_opts){ .backend = "auto", .device = -1 };
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '='), *val = NULL;
        size_t name_len = eq && !strncmp(a, "--", 2) ? (size_t)(eq - a) : strlen(a);
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
            continue;
        }
        const int takes = (name_len == 9 && !strncmp(a, "--backend", 9)) ||
            (name_len == 8 && !strncmp(a, "--device", 8)) ||
            (name_len == 6 && !strncmp(a, "--arch", 6));
        if (!takes)
            return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "unknown option '%.64s'", a);
        if (eq && name_len < strlen(a))
            val = eq + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        else
            return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "%.*s needs a value",
                               (int)name_len, a);
        if (!strncmp(a, "--backend", 9)) {
            o->backend = val;
        } else if (!strncmp(a, "--device", 8)) {
            uint64_t d = 0;
            if (mcf_parse_uint(val, 4095, &d) != MCF_NUM_OK)
                return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                                   "--device: expected a device number from 0, got '%.64s'", val);
            o->device = (int)d;
        } else if (parse_arch(val, o, e) != MCF_OK) {
            return e->rc;
        }
    }
    return MCF_OK;
}

/* The backend: --backend, or auto (a GPU backend with the self-test that sees
 * a device, else the host), said on out. */
static int choose(const struct selftest_opts *o, struct mcf_backend *be, FILE *out,
                  struct mcf_err *e)
{
    const struct mcf_rank_env env = { .local_rank = 0, .local_size = 1, .ncpus = 0 };
    char name[32], why[512] = "";
    snprintf(name, sizeof name, "%s", o->backend);
    if (!strcmp(name, "auto")) mcf_backend_auto(&env, 1, "", name, sizeof name, why, sizeof why);
    MCF_TRY(mcf_backend_select(name, be, e));
    for (int i = 0; mcf_backends[i]; i++) /* the table as defined, before the defaults */
        if (!strcmp(mcf_backends[i]->name, name) && !mcf_backends[i]->mfma_exec)
            MCF_FAIL(e, MCF_EINPUT,
                     "--backend %s: the %s backend has no MFMA self-test (it checks AMD's MFMA "
                     "layouts: hip on an AMD GPU, or host to test the comparison)",
                     name, name);
    if (o->ngens && be->is_gpu)
        MCF_FAIL(e, MCF_EINPUT, "--arch is the host's: a GPU is tested as the generation it is");
    if (strcmp(o->backend, "auto") != 0)
        fprintf(out, "backend: %s\n", name);
    else
        fprintf(out, "backend: %s (auto%s%s)\n", name, why[0] ? ": " : "", why);
    return MCF_OK;
fail:
    return e->rc;
}

/* Every instruction on the open device: gen 2 or 3 for the host's emulation,
 * 0 for a GPU (devgen: its generation, for the mnemonics). */
static int run_block(const struct mcf_backend *be, void *state, int gen, int devgen,
                     const struct mcf_layout_inject *inj, struct tally *t, FILE *out,
                     struct mcf_err *e)
{
    char line[512];
    *t = (struct tally){ 0 };
    for (int n = 0; n < MCF_MFMA_COUNT; n++) {
        const struct mcf_mfma_insn *in = &mcf_mfma_insns[n];
        const int g = gen ? gen : devgen;
        const char *label = g && in->mnemonic[g - 2][0] ? in->mnemonic[g - 2] : in->name;
        int injected = 0;
        int rc = mcf_mfma_selftest(be, state, in, gen, mfma_layout_result, inj, &injected, line,
                                   sizeof line, e);
        if (rc != MCF_OK && rc != MCF_EVERIFY && rc != MCF_EUNSUPPORTED) {
            fprintf(out, "%-30s ERROR %s\n", label, e->msg);
            return rc;
        }
        fprintf(out, "%-30s %s\n", label, line);
        t->ok += rc == MCF_OK;
        t->bad += rc == MCF_EVERIFY;
        t->absent += rc == MCF_EUNSUPPORTED;
        t->injected += injected;
    }
    fprintf(out, "%d ok, %d mismatched, %d absent on this %s\n", t->ok, t->bad, t->absent,
            gen ? "generation" : "GPU");
    return MCF_OK;
}

static int run_device(const struct mcf_backend *be, void *state, int dev,
                      const struct selftest_opts *o, const struct mcf_layout_inject *inj,
                      int *mismatches, int *injected, FILE *out, struct mcf_err *e)
{
    struct mcf_device_info info;
    struct tally t;
    MCF_TRY(be->open_device(state, dev, e));
    MCF_TRY(be->device_info(state, &info, e));
    fprintf(out, "\ndevice %d: %s, arch %s, PCI %s, UUID %s\n", dev, info.name,
            info.arch[0] ? info.arch : "?", info.pci_bus_id, info.uuid);
    if (be->is_gpu) {
        MCF_TRY(run_block(be, state, 0, mcf_mfma_generation(info.arch), inj, &t, out, e));
        *mismatches += t.bad;
        *injected += t.injected;
        return MCF_OK;
    }
    const int all[2] = { 2, 3 };
    const int *gens = o->ngens ? o->gens : all, ngens = o->ngens ? o->ngens : 2;
    for (int g = 0; g < ngens; g++) {
        fprintf(out, "%s (CDNA%d), emulated by the host backend:\n", mcf_mfma_gfx(gens[g]),
                gens[g]);
        MCF_TRY(run_block(be, state, gens[g], gens[g], inj, &t, out, e));
        *mismatches += t.bad;
        *injected += t.injected;
    }
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_selftest_main(int argc, char **argv, FILE *out, FILE *err)
{
    struct selftest_opts o;
    struct mcf_err e = { 0 };
    struct mcf_layout_inject inj;
    struct mcf_backend be;
    void *state = NULL;
    int count = 0, mismatches = 0, injected = 0;
    if (parse(argc, argv, &o, &e) != MCF_OK) {
        fprintf(err, "mcfleet selftest: %s\nTry 'mcfleet selftest --help'.\n", e.msg);
        return MCF_EXIT_USAGE;
    }
    if (o.help) {
        mcf_selftest_usage(out);
        return MCF_EXIT_OK;
    }
    const char *spec = getenv(MCF_INJECT_LAYOUT_ENV);
    MCF_TRY(mcf_layout_inject_parse(spec, &inj, &e));
    MCF_TRY(choose(&o, &be, out, &e));
    if (inj.active)
        fprintf(
            out,
            "injected: %s=%s (1 added to lane %d, register a[%d] (fp64: a[%d:%d]), of the matching "
            "instructions)\n",
            MCF_INJECT_LAYOUT_ENV, spec, inj.lane, inj.reg, 2 * inj.reg, 2 * inj.reg + 1);
    const struct mcf_rank_env env = { .local_rank = 0, .local_size = 1, .ncpus = 0 };
    MCF_TRY(be.init(&state, &env, &e));
    MCF_TRY(be.device_count(state, &count, &e));
    if (o.device >= count)
        MCF_FAIL(&e, MCF_EINPUT, "--device %d: the %s backend sees %d device%s (0 to %d)", o.device,
                 be.name, count, count == 1 ? "" : "s", count - 1);
    for (int d = o.device >= 0 ? o.device : 0; d < (o.device >= 0 ? o.device + 1 : count); d++)
        MCF_TRY(run_device(&be, state, d, &o, &inj, &mismatches, &injected, out, &e));
    /* an injection that changed nothing would pass for a self-test that misses faults */
    if (inj.active && !injected)
        MCF_FAIL(&e, MCF_EINPUT,
                 "%s=%s injected nothing: no instruction run matches it with a register a[%d] "
                 "(see each instruction's registers in docs/amd.md)",
                 MCF_INJECT_LAYOUT_ENV, spec, inj.reg);
    be.finalize(state);
    return mismatches ? MCF_EXIT_VERIFY : MCF_EXIT_OK;
fail:
    if (state) be.finalize(state);
    fprintf(err, "mcfleet selftest: %s\n", e.msg);
    if (e.rc == MCF_EINPUT) fprintf(err, "Try 'mcfleet selftest --help'.\n");
    return mcf_exit_code(e.rc);
}
