"""An honest CUDA per-channel int8 dequantisation: out = (q - zero_point[c]) * scale[c], c the index along `axis`.
The contiguous int8 input is viewed as (outer, C, inner) and each element's channel is (i / inner) % C; the
difference is taken in integers (exact), converted to fp32, multiplied by the fp32-widened scale (one rounding)
and converted to the scales' dtype, the two roundings the reference makes (its fp32 product, then `.to`).

A single multiply leaves no room for an FMA contraction or fast-math approximations to change a value, but fast
math would flush fp32 denormals; none occur here and none are asked for. Grid-stride loop with int64 indices
(`bench_over_2_31`: 2^31 + 2^15 elements). Style: `torch/extension.h`, `__launch_bounds__`, the scales' dtype
dispatched with AT_DISPATCH_FLOATING_TYPES_AND2 while the input is read as `int8_t` and the zero points as int64.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

DEQUANT_CUDA = r"""
#include <torch/extension.h>
#include <cstdint>

template <typename out_t>
__global__ void __launch_bounds__(512) dequantize_per_channel_kernel(
        const int8_t* __restrict__ q, const out_t* __restrict__ scales, const int64_t* __restrict__ zero_points,
        out_t* __restrict__ out, int64_t n, int64_t channels, int64_t inner) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t c = (i / inner) % channels;
        const int64_t diff = static_cast<int64_t>(q[i]) - zero_points[c];
        const float v = static_cast<float>(diff) * static_cast<float>(scales[c]);
        out[i] = static_cast<out_t>(v);
    }
}

torch::Tensor dequantize_per_channel(torch::Tensor input, torch::Tensor scales, torch::Tensor zero_points,
                                     int64_t channels, int64_t inner) {
    TORCH_CHECK(input.scalar_type() == torch::kInt8, "dequantize_per_channel: int8 input expected");
    TORCH_CHECK(scales.numel() == channels && zero_points.numel() == channels,
                "dequantize_per_channel: one scale and one zero point per channel");
    auto x = input.contiguous();
    auto s = scales.contiguous();
    auto z = zero_points.to(torch::kLong).contiguous();
    auto out = torch::empty(x.sizes(), s.options());
    const int64_t n = x.numel();
    if (n == 0) return out;
    const int threads = 512;
    const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 8192);
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, s.scalar_type(), "dequantize_per_channel", [&] {
        dequantize_per_channel_kernel<scalar_t><<<(unsigned)blocks, threads>>>(
            x.data_ptr<int8_t>(), s.data_ptr<scalar_t>(), z.data_ptr<int64_t>(), out.data_ptr<scalar_t>(), n,
            channels, inner);
    });
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "dequantize_per_channel_kernel failed to launch");
    return out;
}
"""

DEQUANT_CPP = """
torch::Tensor dequantize_per_channel(torch::Tensor input, torch::Tensor scales, torch::Tensor zero_points,
                                     int64_t channels, int64_t inner);
"""

dequant_ext = load_inline(
    name="kbx_honest_dequantize_per_channel",
    cpp_sources=DEQUANT_CPP,
    cuda_sources=DEQUANT_CUDA,
    functions=["dequantize_per_channel"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def dequantize_per_channel_int8(input, scales, zero_points, axis):
    axis = axis % input.dim()
    inner = math.prod(input.shape[axis + 1:])
    return dequant_ext.dequantize_per_channel(input, scales, zero_points, input.shape[axis], inner)
