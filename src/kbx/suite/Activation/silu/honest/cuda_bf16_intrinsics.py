"""An honest CUDA silu written against ATen rather than torch/extension.h: `<ATen/ATen.h>` + `<cuda_runtime.h>` +
`<cuda_bf16.h>` in the CUDA source, `at::Tensor` in the signatures, explicit float and `__nv_bfloat16` branches
instead of a dispatch macro (bf16 data reinterpreted from `at::BFloat16*`, converted with `__bfloat162float` /
`__float2bfloat16`, round to nearest even), `x / (1 + __expf(-x))` under `--use_fast_math`.

Fast math is fine here: `__expf` errs by about 2 + 1.2|x| ulp, so even at the inputs' outliers (|x| ~ 100) silu's
relative error stays near 1e-5, inside the contract's float32-arithmetic allowance (1024 u per element); where
exp(-x) overflows to inf the quotient is -0, as the true value (~ -1e-42) flushes to.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

cuda_source = r"""
#include <ATen/ATen.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__device__ __forceinline__ float silu_f(float x) {
    return x / (1.0f + __expf(-x));
}

__global__ void silu_f32_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (; i < n; i += step) {
        y[i] = silu_f(x[i]);
    }
}

__global__ void silu_bf16_kernel(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (; i < n; i += step) {
        y[i] = __float2bfloat16(silu_f(__bfloat162float(x[i])));
    }
}

at::Tensor silu_cuda(at::Tensor input) {
    TORCH_CHECK(input.is_cuda(), "silu_cuda expects a CUDA tensor");
    at::Tensor x = input.contiguous();
    at::Tensor y = at::empty_like(x);
    const long long n = x.numel();
    if (n == 0) {
        return y;
    }
    const int threads = 512;
    long long blocks = (n + threads - 1) / threads;
    if (blocks > 4096LL * 32) {
        blocks = 4096LL * 32;
    }
    if (x.scalar_type() == at::kFloat) {
        silu_f32_kernel<<<(unsigned)blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    } else if (x.scalar_type() == at::kBFloat16) {
        silu_bf16_kernel<<<(unsigned)blocks, threads>>>(
            reinterpret_cast<const __nv_bfloat16*>(x.data_ptr<at::BFloat16>()),
            reinterpret_cast<__nv_bfloat16*>(y.data_ptr<at::BFloat16>()), n);
    } else {
        TORCH_CHECK(false, "silu_cuda: unsupported dtype ", x.scalar_type());
    }
    cudaError_t status = cudaGetLastError();
    TORCH_CHECK(status == cudaSuccess, "silu kernel failed: ", cudaGetErrorString(status));
    return y;
}
"""

cpp_source = "at::Tensor silu_cuda(at::Tensor input);"

silu_module = load_inline(
    name="kbx_honest_silu_bf16_intrinsics",
    cpp_sources=[cpp_source],
    cuda_sources=[cuda_source],
    functions=["silu_cuda"],
    extra_cuda_cflags=["-O3", "--use_fast_math"],
    with_cuda=True,
    verbose=False,
)


def silu(input):
    return silu_module.silu_cuda(input)
