/*
 * vkdml-run's nn family (ops.h).
 */
#include "ops.h"

const struct run_op run_ops_nn[] =
{
    {NULL},
};
