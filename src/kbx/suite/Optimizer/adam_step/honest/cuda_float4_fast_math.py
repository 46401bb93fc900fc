"""An honest fused CUDA Adam step (fp32, the task's only dtype): one kernel reads param, grad, exp_avg and
exp_avg_sq as `float4`s and writes the three new tensors, in the reference's order (g += wd * p; m = beta1 * m +
(1 - beta1) * g; v = beta2 * v + (1 - beta2) * g * g; p -= lr * (m / bc1) / (sqrt(v / bc2) + eps)). The bias
corrections 1 - beta^step are computed once on the host, in double, as the reference's Python floats are. The
last n % 4 elements are handled by the first threads of the same launch; a pointer that is not 16-byte aligned
sends everything down the scalar path. Outputs are fresh tensors (the task returns them; inputs stay untouched),
returned as a `std::vector` that the wrapper turns into a tuple.

`-O3 --use_fast_math`: approximate division and square root are good to 2 ulp, and the update they feed is a tiny
correction to p, so the outputs move by far less than the contract's fp32-arithmetic allowance.
Style: `torch/extension.h`, `std::vector<torch::Tensor>` return, TORCH_CHECK on dtype and shapes.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

ADAM_SRC = r"""
#include <torch/extension.h>
#include <vector>
#include <cstdint>

struct AdamHyper {
    float lr, beta1, beta2, eps, weight_decay, bc1, bc2;
};

__device__ __forceinline__ void adam_one(float p, float g, float m, float v, const AdamHyper& h,
                                         float& p_out, float& m_out, float& v_out) {
    if (h.weight_decay != 0.0f) g = g + h.weight_decay * p;
    m = h.beta1 * m + (1.0f - h.beta1) * g;
    v = h.beta2 * v + (1.0f - h.beta2) * (g * g);
    const float m_hat = m / h.bc1;
    const float v_hat = v / h.bc2;
    p_out = p - h.lr * (m_hat / (sqrtf(v_hat) + h.eps));
    m_out = m;
    v_out = v;
}

__global__ void adam_vec4_kernel(const float* __restrict__ p, const float* __restrict__ g,
                                 const float* __restrict__ m, const float* __restrict__ v, float* __restrict__ p_out,
                                 float* __restrict__ m_out, float* __restrict__ v_out, int64_t n, AdamHyper h,
                                 bool vectorized) {
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t n4 = vectorized ? n / 4 : 0;
    for (int64_t i = tid; i < n4; i += stride) {
        const float4 pv = reinterpret_cast<const float4*>(p)[i];
        const float4 gv = reinterpret_cast<const float4*>(g)[i];
        const float4 mv = reinterpret_cast<const float4*>(m)[i];
        const float4 vv = reinterpret_cast<const float4*>(v)[i];
        float4 po, mo, vo;
        adam_one(pv.x, gv.x, mv.x, vv.x, h, po.x, mo.x, vo.x);
        adam_one(pv.y, gv.y, mv.y, vv.y, h, po.y, mo.y, vo.y);
        adam_one(pv.z, gv.z, mv.z, vv.z, h, po.z, mo.z, vo.z);
        adam_one(pv.w, gv.w, mv.w, vv.w, h, po.w, mo.w, vo.w);
        reinterpret_cast<float4*>(p_out)[i] = po;
        reinterpret_cast<float4*>(m_out)[i] = mo;
        reinterpret_cast<float4*>(v_out)[i] = vo;
    }
    for (int64_t i = n4 * 4 + tid; i < n; i += stride) {
        adam_one(p[i], g[i], m[i], v[i], h, p_out[i], m_out[i], v_out[i]);
    }
}

static bool aligned16(const torch::Tensor& t) {
    return reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0;
}

std::vector<torch::Tensor> adam_step_forward(torch::Tensor param, torch::Tensor grad, torch::Tensor exp_avg,
                                             torch::Tensor exp_avg_sq, double lr, double beta1, double beta2,
                                             double eps, double weight_decay, double bc1, double bc2) {
    TORCH_CHECK(param.scalar_type() == torch::kFloat32, "adam_step_forward: float32 parameters expected");
    TORCH_CHECK(grad.sizes() == param.sizes() && exp_avg.sizes() == param.sizes() &&
                exp_avg_sq.sizes() == param.sizes(), "adam_step_forward: shapes differ");
    auto p = param.contiguous();
    auto g = grad.contiguous();
    auto m = exp_avg.contiguous();
    auto v = exp_avg_sq.contiguous();
    auto p_out = torch::empty_like(p);
    auto m_out = torch::empty_like(m);
    auto v_out = torch::empty_like(v);
    const int64_t n = p.numel();
    if (n > 0) {
        const AdamHyper h{(float)lr, (float)beta1, (float)beta2, (float)eps, (float)weight_decay, (float)bc1,
                          (float)bc2};
        const bool vectorized = aligned16(p) && aligned16(g) && aligned16(m) && aligned16(v) &&
                                aligned16(p_out) && aligned16(m_out) && aligned16(v_out);
        const int threads = 256;
        const int64_t work = vectorized ? (n + 3) / 4 : n;
        const int64_t blocks = std::min<int64_t>((work + threads - 1) / threads, 8192);
        adam_vec4_kernel<<<(unsigned)blocks, threads>>>(
            p.data_ptr<float>(), g.data_ptr<float>(), m.data_ptr<float>(), v.data_ptr<float>(),
            p_out.data_ptr<float>(), m_out.data_ptr<float>(), v_out.data_ptr<float>(), n, h, vectorized);
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "adam_vec4_kernel: ", cudaGetErrorString(err));
    }
    return {p_out, m_out, v_out};
}
"""

ADAM_DECL = """
std::vector<torch::Tensor> adam_step_forward(torch::Tensor param, torch::Tensor grad, torch::Tensor exp_avg,
                                             torch::Tensor exp_avg_sq, double lr, double beta1, double beta2,
                                             double eps, double weight_decay, double bc1, double bc2);
"""

adam_ext = load_inline(
    name="kbx_honest_adam_step_float4",
    cpp_sources=ADAM_DECL,
    cuda_sources=ADAM_SRC,
    functions=["adam_step_forward"],
    extra_cuda_cflags=["-O3", "--use_fast_math"],
    verbose=False,
)


def adam_step(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
              weight_decay=0.0):
    bias_correction1 = 1.0 - beta1 ** step
    bias_correction2 = 1.0 - beta2 ** step
    outs = adam_ext.adam_step_forward(param, grad, exp_avg, exp_avg_sq, float(lr), float(beta1), float(beta2),
                                      float(eps), float(weight_decay), bias_correction1, bias_correction2)
    return tuple(outs)
