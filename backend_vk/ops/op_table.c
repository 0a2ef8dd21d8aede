/*
 * The operator table: DML_OPERATOR_TYPE → the family that validates and compiles it. An empty
 * slot is an operator not implemented yet (CreateOperator answers E_NOTIMPL and logs its name);
 * CheckFeatureSupport(FEATURE_LEVELS) and vkdml-info read their answers from this table.
 */

#include "ops_private.h"

#define ELEMENTWISE {vkdml_elementwise_validate, vkdml_elementwise_compile}
#define GEMM {vkdml_gemm_validate, vkdml_gemm_compile}

const struct vkdml_op_entry vkdml_op_table[VKDML_OPERATOR_TYPE_COUNT] =
{
    [DML_OPERATOR_ELEMENT_WISE_IDENTITY] = ELEMENTWISE,
    [DML_OPERATOR_ELEMENT_WISE_ADD] = ELEMENTWISE,
    [DML_OPERATOR_ELEMENT_WISE_ADD1] = ELEMENTWISE,
    [DML_OPERATOR_ELEMENT_WISE_MULTIPLY] = ELEMENTWISE,
    [DML_OPERATOR_ACTIVATION_RELU] = ELEMENTWISE,
    [DML_OPERATOR_GEMM] = GEMM,
};
