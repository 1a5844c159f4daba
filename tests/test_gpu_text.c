/* Text the GPU backend reads from the system (built with the CUDA backend). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

void gpu_module_version(const char *line, char *out, size_t len);

static void driver_versions(void **state)
{
    (void)state;
    char v[64];
    /* the open kernel module's banner, as on the H200 machines (2026-11-22) */
    gpu_module_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
                       "(dvs-builder@U22)  Thu Oct 9 2025", v, sizeof v);
    assert_string_equal(v, "580.159.04");
    /* the proprietary module's */
    gpu_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023",
                       v, sizeof v);
    assert_string_equal(v, "535.104.05");
    gpu_module_version("something else entirely", v, sizeof v);
    assert_string_equal(v, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(driver_versions) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
