/*
 * vkdml-run's movement family (ops.h).
 */
#include "ops.h"

const struct run_op run_ops_movement[] =
{
    {NULL},
};
