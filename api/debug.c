/* The debug channel: level filtering, formatting and the application's log callback. */

#include <ctype.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdml_common.h"
#include "dml_op_schema.h"

#define LEVEL_UNSET (-1)

static atomic_int log_level = LEVEL_UNSET;

static struct vkdml_mutex callback_mutex = VKDML_MUTEX_INIT;
static vkdml_log_callback log_callback;
static void *log_callback_user_data;

static const char *const level_names[] = {"none", "err", "fixme", "warn", "info", "trace"};

static int level_from_environment(void)
{
    const char *value = getenv("VKDML_DEBUG");
    unsigned int i;

    if (!value || !*value)
        return VKDML_LOG_WARN;
    for (i = 0; i < ARRAY_SIZE(level_names); ++i)
    {
        if (!strcmp(value, level_names[i]))
            return i;
    }
    fprintf(stderr, "vkdml:warn: VKDML_DEBUG=%s is not one of none|err|fixme|warn|info|trace; using warn.\n", value);
    return VKDML_LOG_WARN;
}

static int current_level(void)
{
    int level = atomic_load_explicit(&log_level, memory_order_relaxed);
    int expected = LEVEL_UNSET;

    if (level != LEVEL_UNSET)
        return level;
    level = level_from_environment();
    /* A concurrent vkdml_set_log_level() wins over the environment. */
    if (!atomic_compare_exchange_strong(&log_level, &expected, level))
        level = expected;
    return level;
}

bool vkdml_log_enabled(enum vkdml_log_level level)
{
    return level != VKDML_LOG_NONE && (int)level <= current_level();
}

VKDML_API void vkdml_set_log_level(enum vkdml_log_level level)
{
    if ((unsigned int)level > VKDML_LOG_TRACE)
        level = VKDML_LOG_TRACE;
    atomic_store(&log_level, (int)level);
}

VKDML_API enum vkdml_log_level vkdml_get_log_level(void)
{
    return (enum vkdml_log_level)current_level();
}

VKDML_API void vkdml_set_log_callback(vkdml_log_callback callback, void *user_data)
{
    vkdml_mutex_lock(&callback_mutex);
    log_callback = callback;
    log_callback_user_data = user_data;
    vkdml_mutex_unlock(&callback_mutex);
}

static void write_to_stderr(enum vkdml_log_level level, enum vkdml_log_source source,
        const char *function, const char *message)
{
    fprintf(stderr, "vkdml:%s:%s%s: %s\n", level_names[level],
            source == VKDML_LOG_SOURCE_VALIDATION ? "validation:" : "", function, message);
}

void vkdml_log(enum vkdml_log_level level, enum vkdml_log_source source, const char *function,
        const char *fmt, ...)
{
    char message[2048];
    size_t length;
    va_list args;

    if (!vkdml_log_enabled(level))
        return;

    va_start(args, fmt);
    vsnprintf(message, sizeof(message), fmt, args);
    va_end(args);
    length = strlen(message);
    while (length && isspace((unsigned char)message[length - 1]))
        message[--length] = '\0';

    /* Held during the call so a callback is never used after vkdml_set_log_callback() replaced it. */
    vkdml_mutex_lock(&callback_mutex);
    if (log_callback)
        log_callback(log_callback_user_data, level, source, function, message);
    else
        write_to_stderr(level, source, function, message);
    vkdml_mutex_unlock(&callback_mutex);
}

const char *vkdml_debug_sprintf(const char *fmt, ...)
{
    static _Thread_local char buffers[8][256];
    static _Thread_local unsigned int next;
    char *buffer = buffers[next++ % ARRAY_SIZE(buffers)];
    va_list args;

    va_start(args, fmt);
    vsnprintf(buffer, sizeof(buffers[0]), fmt, args);
    va_end(args);
    return buffer;
}

const char *debugstr_data_type(uint32_t data_type)
{
    const char *name = vkdml_data_type_name(data_type);

    return name ? name : vkdml_debug_sprintf("UNKNOWN(%d)", (int)data_type);
}
