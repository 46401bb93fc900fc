"""An honest CUDA per-tensor int8 quantisation: q = clamp(rint(x / scale) + zero_point, -128, 127), with the input
widened to fp32 (exact for fp16 and bf16), an IEEE-rounded fp32 division (`__fdiv_rn`), round-half-to-even
(`rintf`, what torch.round does), the zero point added in fp32 (exact for these magnitudes), then clamped and
converted to int8 (an integer-valued float, so the conversion is exact).

No `--use_fast_math` on purpose: it would turn the division into an approximate one (`__fdividef`, 2 ulp), and
an exact contract over inputs that sit on the grid of half-integers would then round some ties the other way.
Style: `<ATen/ATen.h>` + `<cuda_runtime.h>` CUDA source, AT_DISPATCH_FLOATING_TYPES_AND2 over the input dtype, an
int8 (`at::kChar`) output, `extra_cflags` as well as `extra_cuda_cflags`, `with_cuda=True`, `verbose=False`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

QUANT_CUDA = r"""
#include <ATen/ATen.h>
#include <cuda_runtime.h>
#include <cstdint>

template <typename scalar_t>
__global__ void __launch_bounds__(256) quantize_per_tensor_kernel(const scalar_t* __restrict__ x,
                                                                  int8_t* __restrict__ q, int64_t n, float scale,
                                                                  float zero_point) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = rintf(__fdiv_rn(static_cast<float>(x[i]), scale)) + zero_point;
        v = fminf(fmaxf(v, -128.0f), 127.0f);
        q[i] = static_cast<int8_t>(v);
    }
}

at::Tensor quantize_per_tensor_int8_cuda(at::Tensor input, double scale, int64_t zero_point) {
    TORCH_CHECK(input.is_cuda(), "quantize_per_tensor_int8_cuda: CUDA input expected");
    at::Tensor x = input.contiguous();
    at::Tensor q = at::empty(x.sizes(), x.options().dtype(at::kChar));
    const int64_t n = x.numel();
    if (n == 0) return q;
    const int threads = 256;
    const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 4096);
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "quantize_per_tensor_int8", [&] {
        quantize_per_tensor_kernel<scalar_t><<<(unsigned)blocks, threads>>>(
            x.data_ptr<scalar_t>(), q.data_ptr<int8_t>(), n, static_cast<float>(scale),
            static_cast<float>(zero_point));
    });
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "quantize_per_tensor_kernel: ", cudaGetErrorString(err));
    return q;
}
"""

QUANT_CPP = "at::Tensor quantize_per_tensor_int8_cuda(at::Tensor input, double scale, int64_t zero_point);"

quant_ext = load_inline(
    name="kbx_honest_quantize_per_tensor_exact_div",
    cpp_sources=[QUANT_CPP],
    cuda_sources=[QUANT_CUDA],
    functions=["quantize_per_tensor_int8_cuda"],
    extra_cflags=["-O2"],
    extra_cuda_cflags=["-O3", "--fmad=false"],
    with_cuda=True,
    verbose=False,
)


def quantize_per_tensor_int8(input, scale, zero_point):
    return quant_ext.quantize_per_tensor_int8_cuda(input, float(scale), int(zero_point))
