/*
 * DML_OPERATOR_RANDOM_GENERATOR through the public API against a C reference of Philox 4x32-10,
 * which first reproduces Random123's published known-answer vectors: the operator's first block
 * for those states, then odd sizes (not multiples of 4) at ranks 1, 4 and 8, packed and padded
 * strides, a strided state, the output state (the counter advanced by ceil(count / 4), carries
 * across its words) with and without it; then the desc rules, with their error code and log line.
 */
#include <inttypes.h>

#include "dml_test_utils.h"

#define SENTINEL 0xa5

/* Philox 4x32-10 (Random123's philox4x32 with 10 rounds). */
static void philox(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c[4], k[2], hi0, lo0, hi1, lo1;
    uint64_t p0, p1;
    unsigned int round;

    memcpy(c, counter, sizeof(c));
    memcpy(k, key, sizeof(k));
    for (round = 0; round < 10; ++round)
    {
        p0 = (uint64_t)0xd2511f53u * c[0];
        p1 = (uint64_t)0xcd9e8d57u * c[2];
        hi0 = p0 >> 32, lo0 = (uint32_t)p0;
        hi1 = p1 >> 32, lo1 = (uint32_t)p1;
        c[0] = hi1 ^ c[1] ^ k[0];
        c[1] = lo1;
        c[2] = hi0 ^ c[3] ^ k[1];
        c[3] = lo0;
        k[0] += 0x9e3779b9u;
        k[1] += 0xbb67ae85u;
    }
    memcpy(out, c, sizeof(c));
}

/* The 128-bit counter (least significant word first) plus n. */
static void counter_add(const uint32_t counter[4], uint64_t n, uint32_t out[4])
{
    uint64_t sum;
    unsigned int i;

    for (i = 0; i < 4; ++i)
    {
        sum = (uint64_t)counter[i] + (uint32_t)n;
        out[i] = (uint32_t)sum;
        n = (n >> 32) + (sum >> 32);
    }
}

/* Random123's kat_vectors for philox4x32_10: counter, key, result. */
static const uint32_t kat[][10] =
{
    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
    {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
            0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
};

static void test_reference(void **state)
{
    uint32_t out[4];
    size_t i;

    (void)state;
    for (i = 0; i < ARRAY_SIZE(kat); ++i)
    {
        philox(&kat[i][0], &kat[i][4], out);
        assert_memory_equal(out, &kat[i][6], sizeof(out));
    }
}

struct random_case
{
    UINT rank, sizes[8], strides[8];
    bool strided;                       /* false: packed output */
    uint32_t state[6];
    bool output_state;
    UINT state_rank, state_sizes[8], state_strides[8];     /* state_rank 0: {1,1,1,6} packed */
};

static void run_case(struct dml_test_context *context, const struct random_case *c)
{
    static const UINT default_state_sizes[4] = {1, 1, 1, 6};
    struct dml_test_tensor out, in_state, out_state;
    struct dml_test_binding input = {NULL}, outputs[2] = {{NULL}};
    DML_RANDOM_GENERATOR_OPERATOR_DESC desc;
    uint32_t *words, *expected, counter[4], block[4], *state_words, state_stride;
    IDMLCompiledOperator *compiled;
    size_t total, state_total;
    uint64_t i, count;

    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_UINT32, c->rank, c->sizes, c->strided ? c->strides : NULL);
    if (c->state_rank)
        dml_test_tensor_init(&in_state, DML_TENSOR_DATA_TYPE_UINT32, c->state_rank, c->state_sizes,
                c->state_strides);
    else
        dml_test_tensor_init(&in_state, DML_TENSOR_DATA_TYPE_UINT32, 4, default_state_sizes, NULL);
    dml_test_tensor_init(&out_state, DML_TENSOR_DATA_TYPE_UINT32, 4, default_state_sizes, NULL);
    if (c->state_rank)
        dml_test_tensor_init(&out_state, DML_TENSOR_DATA_TYPE_UINT32, c->state_rank, c->state_sizes, NULL);
    desc.InputStateTensor = &in_state.desc;
    desc.OutputTensor = &out.desc;
    desc.OutputStateTensor = c->output_state ? &out_state.desc : NULL;
    desc.Type = DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10;
    compiled = dml_test_compile(context, DML_OPERATOR_RANDOM_GENERATOR, &desc, DML_EXECUTION_FLAG_NONE);

    /* The input state, its words spread by the last dimension's stride (other bytes garbage). */
    state_stride = c->state_rank ? c->state_strides[c->state_rank - 1] : 1;
    state_total = in_state.buffer.TotalTensorSizeInBytes;
    state_words = malloc(state_total);
    assert_non_null(state_words);
    memset(state_words, 0xcd, state_total);
    for (i = 0; i < 6; ++i)
        state_words[i * state_stride] = c->state[i];
    input.buffer = dml_test_create_buffer(context, state_total, state_words);

    total = out.buffer.TotalTensorSizeInBytes;
    words = malloc(total);
    expected = malloc(total);
    assert_true(words && expected);
    memset(expected, SENTINEL, total);
    outputs[0].buffer = dml_test_create_buffer(context, total, expected);
    if (c->output_state)
        outputs[1].buffer = dml_test_create_buffer(context, out_state.buffer.TotalTensorSizeInBytes, NULL);
    dml_test_run(context, compiled, &input, 1, outputs, 2);

    dml_test_read_buffer(context, outputs[0].buffer, 0, words, total);
    count = dml_test_element_count(&out);
    for (i = 0; i < count; ++i)
    {
        if (i % 4 == 0)
        {
            counter_add(c->state, i / 4, counter);
            philox(counter, &c->state[4], block);
        }
        expected[dml_test_element_offset(&out, i)] = block[i % 4];
    }
    for (i = 0; i < total / 4; ++i)
    {
        if (words[i] != expected[i])
            fail_msg("rank %u, %" PRIu64 " elements: word %" PRIu64 " = %#x, expected %#x", c->rank, count, i,
                    words[i], expected[i]);
    }
    if (c->output_state)
    {
        uint32_t state_out[6];

        dml_test_read_buffer(context, outputs[1].buffer, 0, state_out, sizeof(state_out));
        counter_add(c->state, (count + 3) / 4, counter);
        assert_memory_equal(state_out, counter, sizeof(counter));
        assert_memory_equal(&state_out[4], &c->state[4], 2 * sizeof(uint32_t));
        release_last(outputs[1].buffer);
    }
    free(words);
    free(expected);
    free(state_words);
    release_last(outputs[0].buffer);
    release_last(input.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

/* The operator's first block is Philox's known answer. */
static void test_known_answers(void **state)
{
    struct random_case c;
    size_t i;

    for (i = 0; i < ARRAY_SIZE(kat); ++i)
    {
        memset(&c, 0, sizeof(c));
        c.rank = 4;
        c.sizes[0] = c.sizes[1] = c.sizes[2] = 1, c.sizes[3] = 4;
        memcpy(c.state, kat[i], sizeof(c.state));
        c.output_state = i == 1;        /* the counter wraps to 0 */
        run_case(*state, &c);
    }
}

static void test_sizes(void **state)
{
    static const UINT sizes8[8] = {1, 2, 1, 3, 1, 5, 2, 7};
    struct random_case c;
    UINT i, stride;

    /* Rank 1, odd counts, several workgroups; the output state after a carry into word 3. */
    memset(&c, 0, sizeof(c));
    c.rank = 1;
    c.state[0] = 0xffffff00u, c.state[1] = ~0u, c.state[2] = ~0u, c.state[3] = 5;
    c.state[4] = 0x01234567, c.state[5] = 0x89abcdef;
    c.output_state = true;
    c.sizes[0] = 1;
    run_case(*state, &c);
    c.sizes[0] = 7;
    run_case(*state, &c);
    c.sizes[0] = 4099;
    run_case(*state, &c);
    c.output_state = false;
    c.sizes[0] = 33;
    run_case(*state, &c);

    /* DirectML's example shape {3,3,20,7}, packed and padded. */
    memset(&c, 0, sizeof(c));
    c.rank = 4;
    c.sizes[0] = 3, c.sizes[1] = 3, c.sizes[2] = 20, c.sizes[3] = 7;
    c.state[0] = 0x74746c65, c.state[1] = 0x6d536561, c.state[2] = 0x6f46726f, c.state[3] = 0x48656c6c;
    c.state[4] = 42, c.state[5] = 0;
    c.output_state = true;
    run_case(*state, &c);
    c.strided = true;
    c.strides[3] = 2, c.strides[2] = 16, c.strides[1] = 16 * 21, c.strides[0] = 16 * 21 * 3 + 5;
    run_case(*state, &c);

    /* Rank 8, every dimension padded; a strided rank-2 state. */
    memset(&c, 0, sizeof(c));
    c.rank = 8;
    memcpy(c.sizes, sizes8, sizeof(sizes8));
    for (i = 8, stride = 1; i-- > 0; stride = stride * sizes8[i] + 1 + i % 2)
        c.strides[i] = stride;
    c.strided = true;
    c.state[0] = 1, c.state[4] = 0xdeadbeef, c.state[5] = 7;
    c.output_state = true;
    c.state_rank = 2;
    c.state_sizes[0] = 1, c.state_sizes[1] = 6;
    c.state_strides[0] = 24, c.state_strides[1] = 3;
    run_case(*state, &c);
}

static void test_invalid(void **state)
{
    static const UINT state_sizes[4] = {1, 1, 1, 6}, out_sizes[2] = {3, 5};
    struct dml_test_context *context = *state;
    DML_RANDOM_GENERATOR_OPERATOR_DESC desc;
    struct dml_test_tensor in_state, out, out_state;
    struct dml_test_tensor *tensors[] = {&in_state, &out, &out_state};

    dml_test_tensor_init(&in_state, DML_TENSOR_DATA_TYPE_UINT32, 4, state_sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_UINT32, 2, out_sizes, NULL);
    dml_test_tensor_init(&out_state, DML_TENSOR_DATA_TYPE_UINT32, 4, state_sizes, NULL);
    desc.InputStateTensor = &in_state.desc;
    desc.OutputTensor = &out.desc;
    desc.OutputStateTensor = &out_state.desc;
    desc.Type = DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10;
    check_hr(dml_test_try_create(context, DML_OPERATOR_RANDOM_GENERATOR, &desc, tensors, 3), S_OK);
    assert_no_log_errors();

    in_state.sizes[3] = 5;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RANDOM_GENERATOR, &desc, tensors, 3),
            "InputStateTensor must have sizes {1,...,1,6}");
    in_state.sizes[3] = 6, in_state.sizes[1] = 6;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RANDOM_GENERATOR, &desc, tensors, 3),
            "InputStateTensor must have sizes {1,...,1,6}");
    in_state.sizes[1] = 1;
    out_state.sizes[3] = 7;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RANDOM_GENERATOR, &desc, tensors, 3),
            "OutputStateTensor");
    out_state.sizes[3] = 6;
    desc.Type = 1;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RANDOM_GENERATOR, &desc, tensors, 3), "Type");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test(test_reference),
        cmocka_unit_test_setup_teardown(test_known_answers, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_sizes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
