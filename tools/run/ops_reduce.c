/*
 * vkdml-run's reduce family (ops.h).
 */
#include "ops.h"

const struct run_op run_ops_reduce[] =
{
    {NULL},
};
