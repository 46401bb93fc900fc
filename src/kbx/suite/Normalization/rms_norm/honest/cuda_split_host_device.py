"""An honest CUDA rms_norm split the way many extensions are: the host function (checks, allocation, the choice of
dtype) lives in `cpp_sources`, where load_inline's implicit `torch/extension.h` is, and the CUDA source holds only
the kernels and a plain-C launcher that takes raw pointers (`<cuda_runtime.h>`, `<cuda_bf16.h>`, no torch
header). The kernel: one block per row, the sum of squares in fp32 (`__shfl_down_sync` within warps, shared memory
across them), `rsqrtf(sum / N + eps)`, then x * rstd * weight rounded once to the input's dtype.

`eps=None` is float32's epsilon, as the task spells out; the weight is optional (a null pointer). bf16 is handled
through `__nv_bfloat16` and its conversion intrinsics. No fast math (`rsqrtf` is already an approximation of 2 ulp
at most, enough).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

KERNELS = r"""
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

__device__ __forceinline__ float load_f(const float* p, int64_t i) { return p[i]; }
__device__ __forceinline__ float load_f(const __nv_bfloat16* p, int64_t i) { return __bfloat162float(p[i]); }
__device__ __forceinline__ void store_f(float* p, int64_t i, float v) { p[i] = v; }
__device__ __forceinline__ void store_f(__nv_bfloat16* p, int64_t i, float v) { p[i] = __float2bfloat16_rn(v); }

template <typename T>
__global__ void rms_norm_rows(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, int64_t N,
                              float eps) {
    __shared__ float warp_sums[32];
    __shared__ float rstd_shared;
    const T* xr = x + (int64_t)blockIdx.x * N;
    T* yr = y + (int64_t)blockIdx.x * N;

    float ss = 0.0f;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
        const float v = load_f(xr, j);
        ss += v * v;
    }
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_down_sync(0xffffffffu, ss, off);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = ss;
    __syncthreads();
    if (threadIdx.x < 32) {
        const int nwarps = blockDim.x >> 5;
        float v = threadIdx.x < nwarps ? warp_sums[threadIdx.x] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0) rstd_shared = rsqrtf(v / (float)N + eps);
    }
    __syncthreads();
    const float rstd = rstd_shared;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
        float v = load_f(xr, j) * rstd;
        if (w != nullptr) v *= load_f(w, j);
        store_f(yr, j, v);
    }
}

void rms_norm_launch(const void* x, const void* w, void* y, int64_t rows, int64_t N, float eps, bool bf16) {
    const int threads = N >= 8192 ? 1024 : (N >= 1024 ? 256 : 128);
    if (bf16) {
        rms_norm_rows<__nv_bfloat16><<<(unsigned)rows, threads>>>(
            static_cast<const __nv_bfloat16*>(x), static_cast<const __nv_bfloat16*>(w),
            static_cast<__nv_bfloat16*>(y), N, eps);
    } else {
        rms_norm_rows<float><<<(unsigned)rows, threads>>>(
            static_cast<const float*>(x), static_cast<const float*>(w), static_cast<float*>(y), N, eps);
    }
}
"""

HOST = r"""
#include <cstdint>
#include <cuda_runtime.h>

void rms_norm_launch(const void* x, const void* w, void* y, int64_t rows, int64_t N, float eps, bool bf16);

torch::Tensor rms_norm_forward(torch::Tensor input, int64_t N, torch::Tensor weight, bool has_weight, double eps) {
    TORCH_CHECK(input.is_cuda(), "rms_norm_forward: CUDA input expected");
    TORCH_CHECK(input.scalar_type() == torch::kFloat32 || input.scalar_type() == torch::kBFloat16,
                "rms_norm_forward: float32 or bfloat16 expected");
    TORCH_CHECK(N > 0 && input.numel() % N == 0, "rms_norm_forward: bad normalized size");
    auto x = input.contiguous();
    auto y = torch::empty_like(x);
    const int64_t rows = x.numel() / N;
    if (rows == 0) return y;
    torch::Tensor w;
    if (has_weight) {
        w = weight.contiguous();
        TORCH_CHECK(w.numel() == N && w.scalar_type() == x.scalar_type(), "rms_norm_forward: bad weight");
    }
    rms_norm_launch(x.data_ptr(), has_weight ? w.data_ptr() : nullptr, y.data_ptr(), rows, N, (float)eps,
                    x.scalar_type() == torch::kBFloat16);
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "rms_norm kernel: ", cudaGetErrorString(err));
    return y;
}
"""

rms_ext = load_inline(
    name="kbx_honest_rms_norm_split",
    cpp_sources=HOST,
    cuda_sources=KERNELS,
    functions=["rms_norm_forward"],
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3", "-std=c++17"],
    verbose=False,
)

_FP32_EPS = 1.1920928955078125e-07  # torch.finfo(torch.float32).eps


def rms_norm(input, normalized_shape, weight=None, eps=None):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    n = math.prod(shape)
    eps = _FP32_EPS if eps is None else float(eps)
    if weight is None:
        return rms_ext.rms_norm_forward(input, n, input, False, eps)
    return rms_ext.rms_norm_forward(input, n, weight, True, eps)
