/*
 * Shared test harness: cmocka includes, the Vulkan-device probe (exit 77 = skipped, only when
 * no device exists), and a log sink that turns validation messages and unexpected vkdml
 * errors into test failures.
 */
#ifndef VKDML_TEST_UTILS_H
#define VKDML_TEST_UTILS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vkdml.h"

#define VKDML_TEST_SKIP 77

/* Exits with 77 when no usable Vulkan device exists; otherwise returns its index. */
int vkdml_test_require_device(void);

/* Installs the log sink. Call from main() before running tests. */
void vkdml_test_init_logging(void);

/* Messages seen since the last reset. */
struct vkdml_test_log_counts
{
    unsigned int validation;        /* any message from the validation layer */
    unsigned int errors;            /* vkdml ERR lines */
    unsigned int fixmes;
    char last_error[512];
};
void vkdml_test_log_reset(void);
const struct vkdml_test_log_counts *vkdml_test_log_counts(void);

/* Fails the current test if validation messages or unexpected errors were logged; resets. */
#define assert_no_log_errors() vkdml_test_assert_no_log_errors(__FILE__, __LINE__)
void vkdml_test_assert_no_log_errors(const char *file, int line);

/* Fails unless exactly the errors logged since the last reset include `substring`; resets. */
#define assert_logged_error(substring) vkdml_test_assert_logged_error(substring, __FILE__, __LINE__)
void vkdml_test_assert_logged_error(const char *substring, const char *file, int line);

/* Group setup/teardown that only checks the log; for tests without a device of their own. */
int vkdml_test_log_setup(void **state);
int vkdml_test_log_teardown(void **state);

#endif /* VKDML_TEST_UTILS_H */
