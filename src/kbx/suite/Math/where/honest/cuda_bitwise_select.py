"""An honest CUDA where that only moves bits: the selection never does arithmetic, so the kernel is templated on the
element's width (`uint16_t` for float16, `uint32_t` for int32) and copies the chosen operand's bits, NaN payloads
and -0.0 included. Broadcasting is done in C++ (`at::infer_size`, then `expand` views read through their strides,
stride 0 along broadcast dimensions); a Python number `other` becomes a 0-d tensor of the input's dtype (exact for
the integers the task uses).

Style: `<ATen/ATen.h>` + `<cuda_runtime.h>` with `at::Tensor`, a switch on `element_size()` instead of a dispatch
macro, the current stream from `at::cuda::getCurrentCUDAStream()`, `C10_CUDA_KERNEL_LAUNCH_CHECK()`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

WHERE_CUDA = r"""
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <cstdint>

#define WHERE_MAX_DIMS 6

struct WhereShape {
    int ndim;
    int64_t size[WHERE_MAX_DIMS];
    int64_t cond_stride[WHERE_MAX_DIMS];
    int64_t x_stride[WHERE_MAX_DIMS];
    int64_t y_stride[WHERE_MAX_DIMS];
};

template <typename bits_t>
__global__ void where_bits_kernel(const bool* __restrict__ cond, const bits_t* __restrict__ x,
                                  const bits_t* __restrict__ y, bits_t* __restrict__ out, WhereShape s, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (; i < n; i += step) {
        int64_t rem = i, c_off = 0, x_off = 0, y_off = 0;
#pragma unroll
        for (int d = WHERE_MAX_DIMS - 1; d >= 0; --d) {
            if (d < s.ndim) {
                const int64_t coord = rem % s.size[d];
                rem /= s.size[d];
                c_off += coord * s.cond_stride[d];
                x_off += coord * s.x_stride[d];
                y_off += coord * s.y_stride[d];
            }
        }
        out[i] = cond[c_off] ? x[x_off] : y[y_off];
    }
}

at::Tensor where_forward(at::Tensor condition, at::Tensor input, at::Tensor other) {
    TORCH_CHECK(condition.scalar_type() == at::kBool, "where_forward: condition must be bool");
    TORCH_CHECK(input.scalar_type() == other.scalar_type(), "where_forward: input and other must share a dtype");
    auto shape = at::infer_size(at::infer_size(condition.sizes(), input.sizes()), other.sizes());
    TORCH_CHECK((int64_t)shape.size() <= WHERE_MAX_DIMS, "where_forward: too many dimensions");
    at::Tensor c = condition.expand(shape);
    at::Tensor x = input.expand(shape);
    at::Tensor y = other.expand(shape);
    at::Tensor out = at::empty(shape, input.options());
    const int64_t n = out.numel();
    if (n == 0) return out;

    WhereShape s;
    s.ndim = (int)shape.size();
    for (int d = 0; d < s.ndim; ++d) {
        s.size[d] = shape[d];
        s.cond_stride[d] = c.stride(d);
        s.x_stride[d] = x.stride(d);
        s.y_stride[d] = y.stride(d);
    }
    const int threads = 256;
    const unsigned blocks = (unsigned)std::min<int64_t>((n + threads - 1) / threads, 131072);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    switch (input.element_size()) {
        case 2:
            where_bits_kernel<uint16_t><<<blocks, threads, 0, stream>>>(
                c.data_ptr<bool>(), static_cast<const uint16_t*>(x.data_ptr()),
                static_cast<const uint16_t*>(y.data_ptr()), static_cast<uint16_t*>(out.data_ptr()), s, n);
            break;
        case 4:
            where_bits_kernel<uint32_t><<<blocks, threads, 0, stream>>>(
                c.data_ptr<bool>(), static_cast<const uint32_t*>(x.data_ptr()),
                static_cast<const uint32_t*>(y.data_ptr()), static_cast<uint32_t*>(out.data_ptr()), s, n);
            break;
        default:
            TORCH_CHECK(false, "where_forward: unsupported element size ", input.element_size());
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

WHERE_CPP = "at::Tensor where_forward(at::Tensor condition, at::Tensor input, at::Tensor other);"

where_ext = load_inline(
    name="kbx_honest_where_bitwise",
    cpp_sources=WHERE_CPP,
    cuda_sources=WHERE_CUDA,
    functions=["where_forward"],
    extra_cuda_cflags=["-O2"],
    extra_cflags=["-O2"],
    verbose=False,
)


def where(condition, input, other):
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=input.dtype, device=input.device)
    return where_ext.where_forward(condition, input, other)
