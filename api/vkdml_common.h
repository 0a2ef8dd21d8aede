/*
 * Private helpers shared by every part of the library: the debug channel, small macros and the
 * platform mutex. Not installed.
 */
#ifndef VKDML_COMMON_H
#define VKDML_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkdml.h"

#ifdef _WIN32
# define WIN32_LEAN_AND_MEAN
# include <windows.h>
#else
# include <pthread.h>
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define VKDML_MIN(a, b) ((a) < (b) ? (a) : (b))
#define VKDML_MAX(a, b) ((a) > (b) ? (a) : (b))
#define VKDML_ALIGN_UP(v, a) (((v) + (a) - 1) / (a) * (a))

static inline uint64_t vkdml_div_up(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* The smallest power of two at least `value` (1 for 0), at most 2^31. */
static inline uint32_t vkdml_pow2_at_least(uint64_t value)
{
    uint32_t pow2 = 1;

    while (pow2 < value && pow2 < 0x80000000u)
        pow2 <<= 1;
    return pow2;
}

/* The largest power of two at most `value` (1 for 0). */
static inline uint32_t vkdml_pow2_at_most(uint32_t value)
{
    uint32_t pow2 = 1;

    while (pow2 <= value / 2)
        pow2 <<= 1;
    return pow2;
}

#if defined(__MINGW32__)
/* The Windows build uses mingw's C99 printf family (__USE_MINGW_ANSI_STDIO=1: %zu, %llu); GCC's
 * "printf" would check msvcrt's dialect here, which has neither. */
# define VKDML_PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#elif defined(__GNUC__)
# define VKDML_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
# define VKDML_PRINTF(fmt, args)
#endif

/* ---- Debug channel (vkd3d style): TRACE/INFO/WARN/FIXME/ERR with the calling function. ---- */

bool vkdml_log_enabled(enum vkdml_log_level level);
void vkdml_log(enum vkdml_log_level level, enum vkdml_log_source source, const char *function,
        const char *fmt, ...) VKDML_PRINTF(4, 5);

#define VKDML_LOG_(level, ...) \
    do { if (vkdml_log_enabled(level)) vkdml_log(level, VKDML_LOG_SOURCE_VKDML, __func__, __VA_ARGS__); } while (0)

#ifdef VKDML_NO_TRACE_MESSAGES
# define TRACE(...) do { } while (0)
#else
# define TRACE(...) VKDML_LOG_(VKDML_LOG_TRACE, __VA_ARGS__)
#endif
#define INFO(...) VKDML_LOG_(VKDML_LOG_INFO, __VA_ARGS__)
#define WARN(...) VKDML_LOG_(VKDML_LOG_WARN, __VA_ARGS__)
#define FIXME(...) VKDML_LOG_(VKDML_LOG_FIXME, __VA_ARGS__)
#define ERR(...) VKDML_LOG_(VKDML_LOG_ERR, __VA_ARGS__)

/* Logs the first time only; later repeats go out at TRACE so a hot path cannot flood the log. */
#define FIXME_ONCE(...) \
    do { \
        static int fixme_once_done_; \
        if (!fixme_once_done_) { fixme_once_done_ = 1; FIXME(__VA_ARGS__); } \
        else TRACE(__VA_ARGS__); \
    } while (0)

/* Formats into one of a small ring of thread-local buffers, for use inside a log call. */
const char *vkdml_debug_sprintf(const char *fmt, ...) VKDML_PRINTF(1, 2);
/* A DML_TENSOR_DATA_TYPE's name without the prefix ("FLOAT16"), "UNKNOWN(<value>)" for others: the
 * one name of data types in messages, of api/ and of the backend. */
const char *debugstr_data_type(uint32_t data_type);

/* ---- Mutex ---- */

#ifdef _WIN32
struct vkdml_mutex { SRWLOCK lock; };
# define VKDML_MUTEX_INIT { SRWLOCK_INIT }
static inline void vkdml_mutex_lock(struct vkdml_mutex *m) { AcquireSRWLockExclusive(&m->lock); }
static inline void vkdml_mutex_unlock(struct vkdml_mutex *m) { ReleaseSRWLockExclusive(&m->lock); }
#else
struct vkdml_mutex { pthread_mutex_t lock; };
# define VKDML_MUTEX_INIT { PTHREAD_MUTEX_INITIALIZER }
static inline void vkdml_mutex_lock(struct vkdml_mutex *m) { pthread_mutex_lock(&m->lock); }
static inline void vkdml_mutex_unlock(struct vkdml_mutex *m) { pthread_mutex_unlock(&m->lock); }
#endif

/* Bytes per element of a DML_TENSOR_DATA_TYPE, in bits (4-bit types exist); 0 when unknown. */
unsigned int vkdml_data_type_bits(uint32_t data_type);

#endif /* VKDML_COMMON_H */
