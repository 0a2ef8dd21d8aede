/*
 * Fused activations, shared by every host operator (ELEMENT_WISE_ADD1 now; GEMM, CONVOLUTION,
 * BATCH_NORMALIZATION, MEAN_VARIANCE_NORMALIZATION*): DirectML's rules for the FusedActivation
 * field, and the specialization constants kernels_glsl/include/activation.glsl reads.
 */

#include <string.h>

#include "ops_private.h"

/* Every activation desc starts with InputTensor and OutputTensor (DirectML.h). */
struct activation_tensors
{
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputTensor;
};

struct activation_params
{
    uint32_t kind;
    float alpha, beta, gamma;
};

/* DML desc → VKDML_ACTIVATION_* and its parameters, as dml_interface.h defines them. Kinds that
 * are not activations answer NONE. */
static struct activation_params activation_params(const DML_OPERATOR_DESC *activation)
{
    const void *d = activation->Desc;

    switch (activation->Type)
    {
#define PARAMS(kind, a, b, g) return (struct activation_params){kind, a, b, g}
        case DML_OPERATOR_ACTIVATION_IDENTITY:
            PARAMS(VKDML_ACTIVATION_IDENTITY, 0.0f, 0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_LINEAR:
        {
            const DML_ACTIVATION_LINEAR_OPERATOR_DESC *l = d;
            PARAMS(VKDML_ACTIVATION_LINEAR, l->Alpha, l->Beta, 0.0f);
        }
        case DML_OPERATOR_ACTIVATION_SIGMOID:
            PARAMS(VKDML_ACTIVATION_SIGMOID, 0.0f, 0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID:
        {
            const DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC *h = d;
            PARAMS(VKDML_ACTIVATION_HARD_SIGMOID, h->Alpha, h->Beta, 0.0f);
        }
        case DML_OPERATOR_ACTIVATION_TANH:
            PARAMS(VKDML_ACTIVATION_TANH, 0.0f, 0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_SCALED_TANH:
        {
            const DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC *s = d;
            PARAMS(VKDML_ACTIVATION_SCALED_TANH, s->Alpha, s->Beta, 0.0f);
        }
        case DML_OPERATOR_ACTIVATION_RELU:
            PARAMS(VKDML_ACTIVATION_RELU, 0.0f, 0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
            PARAMS(VKDML_ACTIVATION_LEAKY_RELU, ((const DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC *)d)->Alpha,
                    0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU:
            PARAMS(VKDML_ACTIVATION_THRESHOLDED_RELU,
                    ((const DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC *)d)->Alpha, 0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_ELU:
            PARAMS(VKDML_ACTIVATION_ELU, ((const DML_ACTIVATION_ELU_OPERATOR_DESC *)d)->Alpha, 0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_CELU:
            PARAMS(VKDML_ACTIVATION_CELU, ((const DML_ACTIVATION_CELU_OPERATOR_DESC *)d)->Alpha, 0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_SCALED_ELU:
        {
            const DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC *s = d;
            PARAMS(VKDML_ACTIVATION_SCALED_ELU, s->Alpha, 0.0f, s->Gamma);
        }
        case DML_OPERATOR_ACTIVATION_SOFTPLUS:
            PARAMS(VKDML_ACTIVATION_SOFTPLUS, ((const DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC *)d)->Steepness,
                    0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS:
        {
            const DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC *p = d;
            PARAMS(VKDML_ACTIVATION_PARAMETRIC_SOFTPLUS, p->Alpha, p->Beta, 0.0f);
        }
        case DML_OPERATOR_ACTIVATION_SOFTSIGN:
            PARAMS(VKDML_ACTIVATION_SOFTSIGN, 0.0f, 0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_SHRINK:
        {
            const DML_ACTIVATION_SHRINK_OPERATOR_DESC *s = d;
            PARAMS(VKDML_ACTIVATION_SHRINK, s->Threshold, s->Bias, 0.0f);
        }
        case DML_OPERATOR_ACTIVATION_GELU:
            PARAMS(VKDML_ACTIVATION_GELU, 0.0f, 0.0f, 0.0f);
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
        {
            const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC *c = d;
            PARAMS(VKDML_ACTIVATION_CLIP, c->Min, c->Max, 0.0f);
        }
        case DML_OPERATOR_ACTIVATION_SWISH:
            PARAMS(VKDML_ACTIVATION_SWISH, ((const DML_ACTIVATION_SWISH_OPERATOR_DESC *)d)->SigmoidInputScale,
                    0.0f, 0.0f);
        case DML_OPERATOR_ACTIVATION_HARD_SWISH:
        {
            const DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC *h = d;
            PARAMS(VKDML_ACTIVATION_HARD_SWISH, h->Alpha, h->Beta, 0.0f);
        }
#undef PARAMS
        default:
            return (struct activation_params){VKDML_ACTIVATION_NONE, 0.0f, 0.0f, 0.0f};
    }
}

void vkdml_fused_activation_spec(const DML_OPERATOR_DESC *activation, uint32_t spec[VKDML_ACTIVATION_SPEC_COUNT])
{
    struct activation_params p = {VKDML_ACTIVATION_NONE, 0.0f, 0.0f, 0.0f};

    if (activation && activation->Desc)
        p = activation_params(activation);
    spec[0] = p.kind;
    spec[1] = vkdml_float_bits(p.alpha);
    spec[2] = vkdml_float_bits(p.beta);
    spec[3] = vkdml_float_bits(p.gamma);
}

/* DirectML's list of fusible activations (fact sheet 8.2); CLIP and SOFTMAX depend on the host. */
static bool is_fusible_everywhere(DML_OPERATOR_TYPE type)
{
    switch (type)
    {
        case DML_OPERATOR_ACTIVATION_LINEAR:
        case DML_OPERATOR_ACTIVATION_SIGMOID:
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID:
        case DML_OPERATOR_ACTIVATION_TANH:
        case DML_OPERATOR_ACTIVATION_SCALED_TANH:
        case DML_OPERATOR_ACTIVATION_RELU:
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU:
        case DML_OPERATOR_ACTIVATION_ELU:
        case DML_OPERATOR_ACTIVATION_CELU:
        case DML_OPERATOR_ACTIVATION_SCALED_ELU:
        case DML_OPERATOR_ACTIVATION_SOFTPLUS:
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS:
        case DML_OPERATOR_ACTIVATION_SOFTSIGN:
        case DML_OPERATOR_ACTIVATION_IDENTITY:
        case DML_OPERATOR_ACTIVATION_SHRINK:
        case DML_OPERATOR_ACTIVATION_GELU:
            return true;
        default:
            return false;
    }
}

static const char *activation_name(DML_OPERATOR_TYPE type)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(type);

    return schema ? schema->name : vkdml_debug_sprintf("%d", (int)type);
}

bool vkdml_activation_fusible_into(DML_OPERATOR_TYPE host, DML_OPERATOR_TYPE activation)
{
    bool clip_host = host == DML_OPERATOR_CONVOLUTION || host == DML_OPERATOR_GEMM;

    return is_fusible_everywhere(activation) || (activation == DML_OPERATOR_ELEMENT_WISE_CLIP && clip_host);
}

static HRESULT check_fusible(const struct vkdml_operator_view *op, DML_OPERATOR_TYPE type)
{
    if (vkdml_activation_fusible_into(op->type, type))
        return S_OK;
    if (type == DML_OPERATOR_ELEMENT_WISE_CLIP)
        return vkdml_op_error(op, E_INVALIDARG, "FusedActivation.Type=ELEMENT_WISE_CLIP may be fused only into "
                "CONVOLUTION and GEMM.");
    /* DirectML lets GEMM fuse SOFTMAX since DML_FEATURE_LEVEL_6_1 (gemm.c checks its Axes). */
    if ((type == DML_OPERATOR_ACTIVATION_SOFTMAX || type == DML_OPERATOR_ACTIVATION_SOFTMAX1)
            && op->type == DML_OPERATOR_GEMM)
        return S_OK;
    return vkdml_op_error(op, E_INVALIDARG, "FusedActivation.Type=%s is not a fusible activation: the fusible ones "
            "are the ACTIVATION_* types LINEAR, SIGMOID, HARD_SIGMOID, TANH, SCALED_TANH, RELU, LEAKY_RELU, "
            "THRESHOLDED_RELU, ELU, CELU, SCALED_ELU, SOFTPLUS, PARAMETRIC_SOFTPLUS, SOFTSIGN, IDENTITY, SHRINK and "
            "GELU, with ELEMENT_WISE_CLIP in CONVOLUTION and GEMM and ACTIVATION_SOFTMAX(1) in GEMM.",
            activation_name(type));
}

HRESULT vkdml_validate_fused_activation(const struct vkdml_operator_view *op, const DML_OPERATOR_DESC *activation)
{
    const struct activation_tensors *tensors;
    HRESULT hr;

    if (!activation)
        return S_OK;
    if (FAILED(hr = check_fusible(op, activation->Type)))
        return hr;
    if (!(tensors = activation->Desc))
        return vkdml_op_error(op, E_INVALIDARG, "FusedActivation.Desc must not be NULL.");
    if (tensors->InputTensor)
        return vkdml_op_error(op, E_INVALIDARG, "FusedActivation.InputTensor must be NULL (%s).",
                activation_name(activation->Type));
    if (tensors->OutputTensor)
        return vkdml_op_error(op, E_INVALIDARG, "FusedActivation.OutputTensor must be NULL (%s).",
                activation_name(activation->Type));
    if (activation->Type == DML_OPERATOR_ELEMENT_WISE_CLIP
            && ((const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC *)activation->Desc)->ScaleBias)
        return vkdml_op_error(op, E_NOTIMPL, "FusedActivation.ScaleBias of ELEMENT_WISE_CLIP is not implemented.");
    return S_OK;
}
