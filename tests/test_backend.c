#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "backend.h"

static int fake_init(void **state, const struct mcf_rank_env *env, struct mcf_err *e)
{
    (void)env; (void)e;
    *state = NULL;
    return MCF_OK;
}

static int fake_setup(void *s, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    (void)s; (void)k; (void)ks; (void)e;
    return MCF_OK;
}

static const struct mcf_kernel_ops half_family = { fake_setup, NULL, NULL, NULL };

static void missing_hooks_get_defaults(void **state)
{
    (void)state;
    struct mcf_backend b = { .name = "fake", .init = fake_init,
                             .family = { [MCF_FAMILY_MATRIX] = &half_family } };
    mcf_backend_fill(&b);
    assert_non_null(b.finalize);
    assert_non_null(b.device_count);
    assert_non_null(b.open_device);
    assert_non_null(b.device_info);
    int n = 0;
    struct mcf_err e = { 0 };
    assert_int_equal(b.device_count(NULL, &n, &e), MCF_OK);
    assert_int_equal(n, 1);
    struct mcf_device_info d;
    assert_int_equal(b.device_info(NULL, &d, &e), MCF_OK);
    assert_string_equal(d.name, "unknown");
    for (int f = 0; f < MCF_FAMILY_COUNT; f++) {
        assert_non_null(b.family[f]);
        assert_non_null(b.family[f]->setup);
        assert_non_null(b.family[f]->teardown);
    }
    /* a half-defined family is replaced whole: it reports unsupported */
    struct mcf_kernel k = { .family = MCF_FAMILY_MATRIX };
    void *ks;
    assert_int_equal(b.family[MCF_FAMILY_MATRIX]->setup(NULL, &k, &ks, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "no matrix kernels"));
}

static void registry_by_name(void **state)
{
    (void)state;
    struct mcf_backend b;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_backend_select("host", &b, &e), MCF_OK);
    assert_string_equal(b.name, "host");
    for (int f = 0; f < MCF_FAMILY_COUNT; f++)
        assert_non_null(b.family[f]);
    /* the registry ends with NULL and always has host */
    int n = 0, host = 0;
    for (; mcf_backends[n]; n++)
        host |= !strcmp(mcf_backends[n]->name, "host");
    assert_true(n >= 1 && host);

    mcf_err_clear(&e);
    assert_int_equal(mcf_backend_select("opencl", &b, &e), MCF_EINPUT);
    assert_non_null(strstr(e.msg, "unknown backend 'opencl'"));
#ifndef MCF_HAVE_CUDA
    mcf_err_clear(&e);
    assert_int_equal(mcf_backend_select("cuda", &b, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "not built into this mcfleet"));
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(missing_hooks_get_defaults),
        cmocka_unit_test(registry_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
