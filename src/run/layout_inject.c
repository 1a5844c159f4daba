#include "layout_inject.h"

#include <fnmatch.h>
#include <stdint.h>
#include <string.h>

#include "numparse.h"

/* field (not NUL-terminated, len characters) as a whole number <= max */
static int field(const char *spec, const char *what, const char *s, size_t len, int max, int *out,
                 struct mcf_err *e)
{
    char buf[24] = "";
    uint64_t v = 0;
    if (len < sizeof buf) {
        memcpy(buf, s, len);
        buf[len] = '\0';
    }
    if (len >= sizeof buf || mcf_parse_uint(buf, (uint64_t)max, &v) != MCF_NUM_OK)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           MCF_INJECT_LAYOUT_ENV
                           "='%.300s': %s must be a whole number from 0 to %d, got '%.*s' "
                           "(GLOB:LANE:REG, e.g. 'v_mfma_f32_32x32x2*:5:3')",
                           spec, what, max, (int)(len < 64 ? len : 64), s);
    *out = (int)v;
    return MCF_OK;
}

int mcf_layout_inject_parse(const char *spec, struct mcf_layout_inject *out, struct mcf_err *e)
{
    memset(out, 0, sizeof *out);
    if (!spec || !*spec) return MCF_OK;
    const char *reg = strrchr(spec, ':');
    const char *lane = NULL;
    for (const char *p = spec; reg && p < reg; p++) /* the ':' before REG */
        if (*p == ':') lane = p;
    if (!lane)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           MCF_INJECT_LAYOUT_ENV
                           "='%.300s': expected GLOB:LANE:REG (e.g. 'v_mfma_f32_32x32x2*:5:3')",
                           spec);
    size_t glob_len = (size_t)(lane - spec);
    if (glob_len == 0 || glob_len >= sizeof out->glob)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           MCF_INJECT_LAYOUT_ENV
                           "='%.300s': the instruction pattern must be 1 to %zu characters",
                           spec, sizeof out->glob - 1);
    if (field(spec, "LANE", lane + 1, (size_t)(reg - lane - 1), 63, &out->lane, e) ||
        field(spec, "REG", reg + 1, strlen(reg + 1), 31, &out->reg, e))
        return e->rc;
    memcpy(out->glob, spec, glob_len);
    out->glob[glob_len] = '\0';
    out->active = 1;
    return MCF_OK;
}

int mcf_layout_inject_apply(const struct mcf_layout_inject *inj, const struct mcf_mfma_insn *in,
                            void *dregs)
{
    if (!inj || !inj->active || inj->reg >= mcf_mfma_items(in)) return 0;
    int match = fnmatch(inj->glob, in->name, 0) == 0;
    for (int g = 0; g < 2; g++)
        match |= in->mnemonic[g][0] && fnmatch(inj->glob, in->mnemonic[g], 0) == 0;
    if (!match) return 0;
    mcf_mfma_dreg_set(in, dregs, inj->lane, inj->reg,
                      mcf_mfma_dreg_get(in, dregs, inj->lane, inj->reg) + 1);
    return 1;
}
