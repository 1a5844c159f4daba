/* libFuzzer harness for decks (make fuzz; docs/reliability.md). Every input
 * must end one of two ways:
 *   - accepted: it then expands, as given and under --quick, with a fixed
 *     device, into instances whose names an HDF5 group can hold, none alike;
 *   - refused: MCF_EINPUT with a message that starts "fuzz.yaml:LINE:COL: ".
 * Anything else (another error code, a message without its place, an
 * accepted deck that does not expand) aborts, and libFuzzer keeps the input;
 * ASan and UBSan catch the rest. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deck.h"

#define PATH "fuzz.yaml"

static const struct mcf_device_info device = {
    .cache_bytes = 50ull << 20, .l1_bytes = 256 << 10, .memory_bytes = 80ull << 30,
};

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_deck: %s: %s\n", what, detail);
    abort();
}

/* "fuzz.yaml:LINE:COL: " with LINE, COL >= 1 */
static int placed(const char *msg)
{
    const char *p = msg + strlen(PATH);
    if (strncmp(msg, PATH ":", strlen(PATH) + 1) != 0)
        return 0;
    for (int field = 0; field < 2; field++) {
        p++;
        if (!isdigit((unsigned char)*p) || *p == '0')
            return 0;
        while (isdigit((unsigned char)*p))
            p++;
        if (*p != ':')
            return 0;
    }
    return p[1] == ' ' && p[2] != '\0';
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(((const struct mcf_instance *)a)->name, ((const struct mcf_instance *)b)->name);
}

static void expand_and_check(const struct mcf_deck *d)
{
    struct mcf_instance *in = NULL;
    struct mcf_err e = { 0 };
    int n = 0;
    if (mcf_deck_expand(d, &device, &in, &n, &e) != MCF_OK)
        die("an accepted deck does not expand", e.msg);
    if (n < d->ntests)
        die("fewer instances than tests", d->path);
    for (int i = 0; i < n; i++) {
        const char *s = in[i].name;
        if (!*s || !strcmp(s, ".") || !strcmp(s, "..") || strchr(s, '/'))
            die("an instance name HDF5 cannot hold", s);
        for (const char *p = s; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                die("a control character in an instance name", s);
        if (in[i].repetitions < 1 || in[i].warmup < 0)
            die("repetitions or warm-up out of range", s);
        if (in[i].kernel.family == MCF_FAMILY_MEMORY && in[i].kernel.bytes == 0)
            die("a memory test without a size after expansion", s);
    }
    qsort(in, (size_t)n, sizeof *in, cmp_names);
    for (int i = 1; i < n; i++)
        if (!strcmp(in[i - 1].name, in[i].name))
            die("two instances with one name", in[i].name);
    free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    if (memchr(data, '\0', size))
        return -1;                 /* mcf_deck_read refuses binary files: never parsed */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    int rc = mcf_deck_parse(PATH, text, &d, &e);
    free(text);
    if (rc != MCF_OK) {
        if (rc != MCF_EINPUT)
            die("refused with a code other than MCF_EINPUT", e.msg);
        if (!placed(e.msg))
            die("refused without file:line:col", e.msg);
        return 0;
    }
    if (d.ntests < 1)
        die("accepted without tests", PATH);
    expand_and_check(&d);
    mcf_deck_quick(&d);
    expand_and_check(&d);
    mcf_deck_free(&d);
    return 0;
}
