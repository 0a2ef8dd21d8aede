/* Library-wide entry points of vkdml.h: version, logging, tensor size helper. */

#include <stdio.h>
#include <string.h>

#include "test_utils.h"

static void test_version(void **state)
{
    char expected[32];

    assert_int_equal(vkdml_get_version(), VKDML_VERSION);
    assert_int_equal(VKDML_VERSION_GET_MAJOR(vkdml_get_version()), VKDML_VERSION_MAJOR);
    assert_int_equal(VKDML_VERSION_GET_MINOR(vkdml_get_version()), VKDML_VERSION_MINOR);
    assert_int_equal(VKDML_VERSION_GET_PATCH(vkdml_get_version()), VKDML_VERSION_PATCH);
    assert_non_null(vkdml_get_version_string());
    snprintf(expected, sizeof(expected), "%d.%d.%d", VKDML_VERSION_MAJOR, VKDML_VERSION_MINOR, VKDML_VERSION_PATCH);
    /* The string is the release version or a git description of the build. */
    assert_true(strlen(vkdml_get_version_string()) > 0);
}

struct captured
{
    unsigned int calls;
    enum vkdml_log_level level;
    enum vkdml_log_source source;
    char function[64];
    char message[256];
};

static void capture(void *user_data, enum vkdml_log_level level, enum vkdml_log_source source,
        const char *function, const char *message)
{
    struct captured *c = user_data;

    ++c->calls;
    c->level = level;
    c->source = source;
    snprintf(c->function, sizeof(c->function), "%s", function);
    snprintf(c->message, sizeof(c->message), "%s", message);
}

/* Bad arguments to a vkdml_ function are logged through the callback with the function name. */
static void test_log_callback(void **state)
{
    struct captured c = {0};
    enum vkdml_log_level saved = vkdml_get_log_level();

    vkdml_set_log_callback(capture, &c);
    vkdml_set_log_level(VKDML_LOG_WARN);
    assert_int_equal(vkdml_get_adapter_info(0, NULL, 0), -1);
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.level, VKDML_LOG_ERR);
    assert_int_equal(c.source, VKDML_LOG_SOURCE_VKDML);
    assert_string_equal(c.function, "vkdml_get_adapter_info");
    assert_non_null(strstr(c.message, "info_size"));
    assert_true(c.message[strlen(c.message) - 1] != '\n');

    /* Below the level: not formatted, not delivered. */
    vkdml_set_log_level(VKDML_LOG_NONE);
    assert_int_equal(vkdml_get_adapter_info(0, NULL, 0), -1);
    assert_int_equal(c.calls, 1);

    vkdml_set_log_level(saved);
    vkdml_test_init_logging();
    vkdml_test_log_reset();
}

static void test_log_level(void **state)
{
    enum vkdml_log_level saved = vkdml_get_log_level();

    vkdml_set_log_level(VKDML_LOG_TRACE);
    assert_int_equal(vkdml_get_log_level(), VKDML_LOG_TRACE);
    vkdml_set_log_level((enum vkdml_log_level)42);   /* clamped */
    assert_int_equal(vkdml_get_log_level(), VKDML_LOG_TRACE);
    vkdml_set_log_level(VKDML_LOG_ERR);
    assert_int_equal(vkdml_get_log_level(), VKDML_LOG_ERR);
    vkdml_set_log_level(saved);
}

/* Data type values are DML_TENSOR_DATA_TYPE's: FLOAT32 1, FLOAT16 2, UINT8 5, FLOAT64 9, UINT4 12. */
static void test_tensor_size(void **state)
{
    static const uint32_t sizes[] = {2, 3, 5}, strides[] = {15, 5, 1}, broadcast[] = {0, 1, 0};
    static const uint32_t padded[] = {32, 8, 1}, odd[] = {3};

    assert_int_equal(vkdml_calc_buffer_tensor_size(1, 3, sizes, NULL), 2 * 3 * 5 * 4);
    assert_int_equal(vkdml_calc_buffer_tensor_size(1, 3, sizes, strides), 2 * 3 * 5 * 4);
    /* Last index 1*32 + 2*8 + 4*1 = 52, so 53 elements. */
    assert_int_equal(vkdml_calc_buffer_tensor_size(1, 3, sizes, padded), 53 * 4);
    assert_int_equal(vkdml_calc_buffer_tensor_size(1, 3, sizes, broadcast), 3 * 4);
    /* Rounded up to 4 bytes. */
    assert_int_equal(vkdml_calc_buffer_tensor_size(2, 1, odd, NULL), 8);
    assert_int_equal(vkdml_calc_buffer_tensor_size(5, 1, odd, NULL), 4);
    assert_int_equal(vkdml_calc_buffer_tensor_size(9, 1, odd, NULL), 24);
    /* 4-bit: 3 elements = 12 bits = 2 bytes -> 4. */
    assert_int_equal(vkdml_calc_buffer_tensor_size(12, 1, odd, NULL), 4);
    /* 64-bit arithmetic: 65536 x 65536 float16 is 8 GiB. */
    {
        static const uint32_t big[] = {65536, 65536};
        assert_true(vkdml_calc_buffer_tensor_size(2, 2, big, NULL) == 8ull << 30);
    }
    /* Invalid: unknown type, no sizes, zero size. */
    {
        static const uint32_t zero[] = {2, 0};
        assert_int_equal(vkdml_calc_buffer_tensor_size(0, 3, sizes, NULL), 0);
        assert_int_equal(vkdml_calc_buffer_tensor_size(14, 3, sizes, NULL), 0);
        assert_int_equal(vkdml_calc_buffer_tensor_size(1, 3, NULL, NULL), 0);
        assert_int_equal(vkdml_calc_buffer_tensor_size(1, 2, zero, NULL), 0);
        assert_int_equal(vkdml_calc_buffer_tensor_size(1, 2, zero, strides), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_teardown(test_version, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_log_callback, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_log_level, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_tensor_size, vkdml_test_log_teardown),
    };

    vkdml_test_init_logging();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
