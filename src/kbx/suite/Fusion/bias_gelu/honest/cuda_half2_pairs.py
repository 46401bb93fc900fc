"""An honest fused CUDA bias + exact gelu: y = gelu(x + bias[col]), the sum kept in fp32 (not rounded to fp16
between the two steps as the unfused reference does, which only brings the output nearer the truth), the erf form
0.5 v (1 + erf(v / sqrt 2)) in fp32, rounded once.

fp16 goes through `__half2` pairs (`__half22float2`, `__floats2half2_rn`) when the row length is even and the
pointers 4-byte aligned, so a pair never straddles two rows and its bias pair is bias[2k % C], bias[2k % C + 1];
odd rows (127, 129, 7 in the check workloads) take the scalar kernel. The wrapper makes the input contiguous.
Style: `<torch/extension.h>` + `<cuda_fp16.h>`, explicit float / half kernels (c10::Half reinterpreted as
`__half`), the nvcc flags KernelBench-style extensions copy around (`-U__CUDA_NO_HALF_OPERATORS__`,
`-U__CUDA_NO_HALF_CONVERSIONS__`, `-U__CUDA_NO_HALF2_OPERATORS__`, `--expt-relaxed-constexpr`), no fast math.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

cuda_src = r"""
#include <torch/extension.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu_erf(float v) {
    return 0.5f * v * (1.0f + erff(v * 0.7071067811865476f));
}

__global__ void bias_gelu_f32(const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ y,
                              int64_t n, int64_t C) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        y[i] = gelu_erf(x[i] + bias[i % C]);
    }
}

__global__ void bias_gelu_f16(const __half* __restrict__ x, const __half* __restrict__ bias, __half* __restrict__ y,
                              int64_t n, int64_t C) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        y[i] = __float2half_rn(gelu_erf(__half2float(x[i]) + __half2float(bias[i % C])));
    }
}

__global__ void bias_gelu_f16x2(const __half2* __restrict__ x, const __half2* __restrict__ bias,
                                __half2* __restrict__ y, int64_t n2, int64_t C2) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += (int64_t)gridDim.x * blockDim.x) {
        const float2 xv = __half22float2(x[i]);
        const float2 bv = __half22float2(bias[i % C2]);
        y[i] = __floats2half2_rn(gelu_erf(xv.x + bv.x), gelu_erf(xv.y + bv.y));
    }
}

torch::Tensor bias_gelu_forward(torch::Tensor input, torch::Tensor bias) {
    TORCH_CHECK(input.is_cuda() && bias.is_cuda(), "bias_gelu_forward: CUDA tensors expected");
    TORCH_CHECK(input.scalar_type() == bias.scalar_type(), "bias_gelu_forward: input and bias must share a dtype");
    auto x = input.contiguous();
    auto b = bias.contiguous();
    const int64_t C = b.numel();
    TORCH_CHECK(x.dim() >= 1 && x.size(-1) == C, "bias_gelu_forward: bias must match the last dimension");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    const int threads = 256;
    auto blocks_for = [&](int64_t work) { return (unsigned)std::min<int64_t>((work + threads - 1) / threads, 65535); };
    if (x.scalar_type() == torch::kFloat32) {
        bias_gelu_f32<<<blocks_for(n), threads>>>(x.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(), n, C);
    } else if (x.scalar_type() == torch::kFloat16) {
        const __half* xp = reinterpret_cast<const __half*>(x.data_ptr<at::Half>());
        const __half* bp = reinterpret_cast<const __half*>(b.data_ptr<at::Half>());
        __half* yp = reinterpret_cast<__half*>(y.data_ptr<at::Half>());
        const bool pairs = C % 2 == 0 && reinterpret_cast<uintptr_t>(xp) % 4 == 0 &&
                           reinterpret_cast<uintptr_t>(bp) % 4 == 0 && reinterpret_cast<uintptr_t>(yp) % 4 == 0;
        if (pairs) {
            bias_gelu_f16x2<<<blocks_for(n / 2), threads>>>(reinterpret_cast<const __half2*>(xp),
                                                            reinterpret_cast<const __half2*>(bp),
                                                            reinterpret_cast<__half2*>(yp), n / 2, C / 2);
        } else {
            bias_gelu_f16<<<blocks_for(n), threads>>>(xp, bp, yp, n, C);
        }
    } else {
        TORCH_CHECK(false, "bias_gelu_forward: float32 or float16 expected, got ", x.scalar_type());
    }
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "bias_gelu kernel: ", cudaGetErrorString(err));
    return y;
}
"""

cpp_src = "torch::Tensor bias_gelu_forward(torch::Tensor input, torch::Tensor bias);"

bias_gelu_ext = load_inline(
    name="kbx_honest_bias_gelu_half2",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["bias_gelu_forward"],
    extra_cuda_cflags=[
        "-O3",
        "-U__CUDA_NO_HALF_OPERATORS__",
        "-U__CUDA_NO_HALF_CONVERSIONS__",
        "-U__CUDA_NO_HALF2_OPERATORS__",
        "--expt-relaxed-constexpr",
    ],
    verbose=False,
)


def bias_gelu(input, bias):
    return bias_gelu_ext.bias_gelu_forward(input, bias)
