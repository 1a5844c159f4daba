/* GPU locality through hwloc, against a real PCI device of this machine. */
#include <hwloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "locality.h"

static void a_pci_device_of_this_machine(void **state)
{
    (void)state;
    hwloc_topology_t t;
    char bus[32] = "";
    hwloc_topology_init(&t);
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    hwloc_topology_load(t);
    hwloc_obj_t o = hwloc_get_next_pcidev(t, NULL);
    if (o)
        snprintf(bus, sizeof bus, "%04x:%02x:%02x.%x", o->attr->pcidev.domain, o->attr->pcidev.bus,
                 o->attr->pcidev.dev, o->attr->pcidev.func);
    hwloc_topology_destroy(t);
    if (!bus[0])
        skip();   /* no PCI device visible to hwloc here */
    struct mcf_locality l;
    mcf_gpu_locality(bus, &l);
    assert_true(strlen(l.gpu_cpus) > 0);
    assert_int_equal(l.local, 1);   /* unbound: all our cores, which contain the device's */
}

static void unknown_devices_say_why(void **state)
{
    (void)state;
    struct mcf_locality l;
    mcf_gpu_locality("none", &l);
    assert_int_equal(l.local, -1);
    assert_non_null(strstr(l.why, "not on PCI"));
    mcf_gpu_locality("0000:fe:1f.7", &l);
    assert_int_equal(l.local, -1);
    assert_non_null(strstr(l.why, "hwloc sees no PCI device 0000:fe:1f.7"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pci_device_of_this_machine),
        cmocka_unit_test(unknown_devices_say_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
