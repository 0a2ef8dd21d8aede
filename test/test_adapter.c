/* Adapter enumeration and selection through vkdml.h. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_utils.h"

static void format_uuid(const uint8_t uuid[16], char *text, int dashes)
{
    unsigned int i;

    for (i = 0; i < 16; ++i)
        text += sprintf(text, "%02X%s", uuid[i], dashes && (i == 3 || i == 5 || i == 7 || i == 9) ? "-" : "");
}

static void test_enumerate(void **state)
{
    struct vkdml_adapter_info info;
    int count = vkdml_get_adapter_count(), i;

    assert_true(count > 0);
    for (i = 0; i < count; ++i)
    {
        memset(&info, 0xcc, sizeof(info));
        assert_int_equal(vkdml_get_adapter_info(i, &info, sizeof(info)), 0);
        assert_int_equal(info.index, (uint32_t)i);
        assert_true(strlen(info.name) > 0);
        assert_true(info.api_version != 0);
        assert_true(info.is_supported == 0 || info.is_supported == 1);
        if (!info.is_supported)
            assert_true(strlen(info.unsupported_reason) > 0);
        if (info.type == VKDML_ADAPTER_TYPE_CPU)
            assert_true(info.is_software);
    }
    assert_no_log_errors();

    assert_int_equal(vkdml_get_adapter_info(count, &info, sizeof(info)), -1);
    assert_logged_error("out of range");
}

/* An older, smaller struct is filled only as far as it goes. */
static void test_info_prefix(void **state)
{
    unsigned char buffer[sizeof(struct vkdml_adapter_info) + 16];
    size_t prefix = offsetof(struct vkdml_adapter_info, vendor_id);
    unsigned int i;

    memset(buffer, 0xab, sizeof(buffer));
    assert_int_equal(vkdml_get_adapter_info(0, (struct vkdml_adapter_info *)buffer, prefix), 0);
    for (i = prefix; i < sizeof(buffer); ++i)
        assert_int_equal(buffer[i], 0xab);
    assert_no_log_errors();
}

static void test_select(void **state)
{
    struct vkdml_adapter_info info;
    char uuid[40], index_text[16], name_part[16];
    int selected = vkdml_select_adapter(NULL);

    assert_true(selected >= 0);
    assert_int_equal(vkdml_get_adapter_info(selected, &info, sizeof(info)), 0);
    assert_true(info.is_supported);

    snprintf(index_text, sizeof(index_text), "%d", selected);
    assert_int_equal(vkdml_select_adapter(index_text), selected);
    format_uuid(info.device_uuid, uuid, 0);
    assert_int_equal(vkdml_select_adapter(uuid), selected);
    format_uuid(info.device_uuid, uuid, 1);
    assert_int_equal(vkdml_select_adapter(uuid), selected);
    /* Case-insensitive name substring. */
    snprintf(name_part, sizeof(name_part), "%.4s", info.name);
    for (char *p = name_part; *p; ++p)
        *p = (*p >= 'a' && *p <= 'z') ? *p - 32 : (*p >= 'A' && *p <= 'Z') ? *p + 32 : *p;
    assert_true(vkdml_select_adapter(name_part) >= 0);
    assert_no_log_errors();

    assert_int_equal(vkdml_select_adapter("no such device, surely"), -1);
    assert_logged_error("no such device, surely");
    assert_int_equal(vkdml_select_adapter("9999"), -1);
    assert_logged_error("9999");
}

/* VKDML_DEVICE is the default selector. */
static void test_select_environment(void **state)
{
    int selected = vkdml_select_adapter(NULL);
    char index_text[16];

#ifdef _WIN32
    _putenv("VKDML_DEVICE=no such device, surely");
#else
    setenv("VKDML_DEVICE", "no such device, surely", 1);
#endif
    assert_int_equal(vkdml_select_adapter(NULL), -1);
    assert_logged_error("no such device");
    /* An explicit selector wins over the environment. */
    snprintf(index_text, sizeof(index_text), "%d", selected);
    assert_int_equal(vkdml_select_adapter(index_text), selected);
    assert_no_log_errors();
#ifdef _WIN32
    _putenv("VKDML_DEVICE=");
#else
    unsetenv("VKDML_DEVICE");
#endif
    assert_int_equal(vkdml_select_adapter(NULL), selected);
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_teardown(test_enumerate, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_info_prefix, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_select, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_select_environment, vkdml_test_log_teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
