/*
 * What the benchmarks (bench_*.c) share: random FLOAT32 / FLOAT16 inputs and the wall-clock
 * timing of one command list of dependent dispatches. The shim has no timestamp queries yet:
 * a figure is the time around ExecuteCommandLists + the fence wait.
 */
#ifndef VKDML_TEST_OPS_BENCH_UTILS_H
#define VKDML_TEST_OPS_BENCH_UTILS_H

#include "dml_test_utils.h"

/* Seconds on a monotonic clock. */
double bench_now(void);

/* `count` values uniform in [-1, 1] from `seed` (FLOAT16: as rounded), for the spot checks;
 * *bytes receives them in `type` for the buffer. The caller frees both. */
float *bench_random_values(DML_TENSOR_DATA_TYPE type, size_t count, uint32_t seed, void **bytes);

/* Seconds for one execution of a list of `count` dispatches of `compiled`, a UAV barrier after
 * each (dependent operators, as in a network). */
double bench_time_dispatches(struct dml_test_context *context, IDMLCompiledOperator *compiled,
        IDMLBindingTable *table, unsigned int count);
/* Seconds per dispatch: after a warm-up, the list timed with R and 2R dispatches, three times
 * each; the median of (T(2R) - T(R)) / R, which cancels the submission and wake-up cost. R is
 * chosen so that T(R) is about 25 ms. */
double bench_time_per_dispatch(struct dml_test_context *context, IDMLCompiledOperator *compiled,
        IDMLBindingTable *table);

/* A binding table for `compiled` with inputs {buffers[0], buffers[1], none} and output
 * buffers[2], each bound whole, and a temporary resource (*temporary, NULL when none: split-K
 * kernels need one). */
IDMLBindingTable *bench_bind_two_inputs(struct dml_test_context *context, IDMLCompiledOperator *compiled,
        ID3D12Resource *const buffers[3], ID3D12Resource **temporary);

#endif /* VKDML_TEST_OPS_BENCH_UTILS_H */
