"""An honest CUDA leaky_relu with no torch header in its sources (the quick-to-compile form of `relu_raw.py`): the
Python wrapper makes the input contiguous, allocates the output and hands the extension raw device pointers.

fp32 goes through `float4` loads and stores (16-byte aligned pointers, else everything takes the scalar path) with a
scalar tail for the last n % 4 elements; fp16 goes through `__half2` pairs with a one-element tail. The slope is
applied in fp32 (`__half2float(x) * slope`, rounded once), as PyTorch's opmath does: multiplying by the slope
rounded to half (`__hmul(x, __float2half(0.01f))`) would miss by up to 2^-11 relative. Offsets are int64: the
`bench_over_2_31` workload has 2^31 + 2^15 elements.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

CUDA_SOURCE = r"""
#include <cstdint>
#include <cuda_fp16.h>

__device__ __forceinline__ float leaky(float v, float slope) {
    return v > 0.0f ? v : v * slope;
}

__global__ void leaky_relu_f32_vec4(const float4* __restrict__ x, float4* __restrict__ y, std::int64_t n4,
                                    float slope) {
    const std::int64_t stride = (std::int64_t)gridDim.x * blockDim.x;
    for (std::int64_t i = (std::int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = x[i];
        v.x = leaky(v.x, slope);
        v.y = leaky(v.y, slope);
        v.z = leaky(v.z, slope);
        v.w = leaky(v.w, slope);
        y[i] = v;
    }
}

__global__ void leaky_relu_f32_scalar(const float* __restrict__ x, float* __restrict__ y, std::int64_t start,
                                      std::int64_t n, float slope) {
    const std::int64_t stride = (std::int64_t)gridDim.x * blockDim.x;
    for (std::int64_t i = start + (std::int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = leaky(x[i], slope);
    }
}

__global__ void leaky_relu_f16_vec2(const __half2* __restrict__ x, __half2* __restrict__ y, std::int64_t n2,
                                    float slope) {
    const std::int64_t stride = (std::int64_t)gridDim.x * blockDim.x;
    for (std::int64_t i = (std::int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += stride) {
        const float2 v = __half22float2(x[i]);
        y[i] = __floats2half2_rn(leaky(v.x, slope), leaky(v.y, slope));
    }
}

__global__ void leaky_relu_f16_scalar(const __half* __restrict__ x, __half* __restrict__ y, std::int64_t start,
                                      std::int64_t n, float slope) {
    const std::int64_t stride = (std::int64_t)gridDim.x * blockDim.x;
    for (std::int64_t i = start + (std::int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = __float2half_rn(leaky(__half2float(x[i]), slope));
    }
}

static unsigned int blocks_for(std::int64_t work, int threads) {
    std::int64_t blocks = (work + threads - 1) / threads;
    if (blocks < 1) blocks = 1;
    if (blocks > 1048576) blocks = 1048576;
    return (unsigned int)blocks;
}

void leaky_relu_launch(std::uintptr_t x, std::uintptr_t y, std::int64_t n, double negative_slope, bool is_half) {
    const int threads = 256;
    const float slope = (float)negative_slope;
    if (n <= 0) return;
    if (!is_half) {
        std::int64_t done = 0;
        if (x % 16 == 0 && y % 16 == 0) {
            const std::int64_t n4 = n / 4;
            if (n4 > 0) {
                leaky_relu_f32_vec4<<<blocks_for(n4, threads), threads>>>(
                    reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), n4, slope);
            }
            done = n4 * 4;
        }
        if (done < n) {
            leaky_relu_f32_scalar<<<blocks_for(n - done, threads), threads>>>(
                reinterpret_cast<const float*>(x), reinterpret_cast<float*>(y), done, n, slope);
        }
    } else {
        std::int64_t done = 0;
        if (x % 4 == 0 && y % 4 == 0) {
            const std::int64_t n2 = n / 2;
            if (n2 > 0) {
                leaky_relu_f16_vec2<<<blocks_for(n2, threads), threads>>>(
                    reinterpret_cast<const __half2*>(x), reinterpret_cast<__half2*>(y), n2, slope);
            }
            done = n2 * 2;
        }
        if (done < n) {
            leaky_relu_f16_scalar<<<blocks_for(n - done, threads), threads>>>(
                reinterpret_cast<const __half*>(x), reinterpret_cast<__half*>(y), done, n, slope);
        }
    }
}
"""

CPP_SOURCE = r"""
#include <pybind11/pybind11.h>
#include <cstdint>
void leaky_relu_launch(std::uintptr_t x, std::uintptr_t y, std::int64_t n, double negative_slope, bool is_half);
"""

leaky_ext = load_inline(
    name="kbx_honest_leaky_relu_raw_float4",
    cpp_sources=CPP_SOURCE,
    cuda_sources=CUDA_SOURCE,
    functions=["leaky_relu_launch"],
    extra_cuda_cflags=["-O3", "-lineinfo"],
    no_implicit_headers=True,
    with_pytorch_error_handling=False,
)


def leaky_relu(input, negative_slope=0.01):
    if input.dtype not in (torch.float32, torch.float16):
        raise TypeError(f"leaky_relu: unsupported dtype {input.dtype}")
    x = input.contiguous()
    out = torch.empty_like(x)
    if x.numel() > 0:
        leaky_ext.leaky_relu_launch(x.data_ptr(), out.data_ptr(), x.numel(), float(negative_slope),
                                    x.dtype == torch.float16)
    return out
