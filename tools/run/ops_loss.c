/*
 * vkdml-run's loss family (ops.h): NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
 */
#include "ops.h"

const struct run_op run_ops_loss[] =
{
    {NULL},
};
