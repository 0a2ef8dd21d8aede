#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_utils.h"

#if defined(__SANITIZE_ADDRESS__) && !defined(_WIN32)
# include <dlfcn.h>

/* The loader dlopens the driver per instance and dlcloses it on destroy; lavapipe leaks a little
 * per load, and LeakSanitizer cannot name (so cannot suppress) code that is no longer mapped.
 * Keeping the driver resident makes test/lsan.supp's "leak:libvulkan_lvp.so" apply. */
static void pin_vulkan_driver(void)
{
    dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
}
#else
static void pin_vulkan_driver(void)
{
}
#endif

static struct vkdml_test_log_counts counts;

static void log_sink(void *user_data, enum vkdml_log_level level, enum vkdml_log_source source,
        const char *function, const char *message)
{
    static const char *const names[] = {"none", "err", "fixme", "warn", "info", "trace"};

    fprintf(stderr, "  [%s%s] %s: %s\n", source == VKDML_LOG_SOURCE_VALIDATION ? "validation " : "",
            names[level], function, message);
    if (source == VKDML_LOG_SOURCE_VALIDATION)
    {
        ++counts.validation;
        snprintf(counts.last_error, sizeof(counts.last_error), "%s: %s", function, message);
    }
    else if (level == VKDML_LOG_ERR)
    {
        ++counts.errors;
        snprintf(counts.last_error, sizeof(counts.last_error), "%s: %s", function, message);
    }
    else if (level == VKDML_LOG_FIXME)
    {
        ++counts.fixmes;
    }
}

void vkdml_test_init_logging(void)
{
    pin_vulkan_driver();
    vkdml_set_log_callback(log_sink, NULL);
}

void vkdml_test_log_reset(void)
{
    memset(&counts, 0, sizeof(counts));
}

const struct vkdml_test_log_counts *vkdml_test_log_counts(void)
{
    return &counts;
}

void vkdml_test_assert_no_log_errors(const char *file, int line)
{
    struct vkdml_test_log_counts seen = counts;

    vkdml_test_log_reset();
    if (seen.validation || seen.errors)
    {
        fprintf(stderr, "%s:%d: %u validation message(s), %u error(s) logged; last: %s\n", file, line,
                seen.validation, seen.errors, seen.last_error);
        _fail(file, line);
    }
}

void vkdml_test_assert_logged_error(const char *substring, const char *file, int line)
{
    struct vkdml_test_log_counts seen = counts;

    vkdml_test_log_reset();
    if (seen.validation || !seen.errors || !strstr(seen.last_error, substring))
    {
        fprintf(stderr, "%s:%d: expected an error log containing \"%s\"; saw %u error(s), %u validation "
                "message(s), last: \"%s\"\n", file, line, substring, seen.errors, seen.validation, seen.last_error);
        _fail(file, line);
    }
}

int vkdml_test_require_device(void)
{
    int index;

    if (vkdml_get_adapter_count() <= 0)
    {
        fprintf(stderr, "No Vulkan device: skipping.\n");
        exit(VKDML_TEST_SKIP);
    }
    if ((index = vkdml_select_adapter(NULL)) < 0)
    {
        fprintf(stderr, "No usable Vulkan device: skipping.\n");
        exit(VKDML_TEST_SKIP);
    }
    vkdml_test_log_reset();
    return index;
}

int vkdml_test_log_setup(void **state)
{
    vkdml_test_log_reset();
    return 0;
}

int vkdml_test_log_teardown(void **state)
{
    const struct vkdml_test_log_counts *seen = vkdml_test_log_counts();

    if (seen->validation || seen->errors)
    {
        fprintf(stderr, "Unchecked log messages: %u validation, %u errors; last: %s\n",
                seen->validation, seen->errors, seen->last_error);
        return -1;
    }
    return 0;
}
