"""An honest CUDA gelu, KernelBench style: `#include <torch/extension.h>` in the CUDA source, one templated
grid-stride kernel per formula dispatched with AT_DISPATCH_FLOATING_TYPES_AND2, two functions in one extension
(the exact erf form and the tanh approximation), TORCH_CHECK on the input, `cudaGetLastError` after the launch.

Arithmetic in fp32 for bf16 (one rounding at the store), int64 indices (the bench has 2^28 elements, the kernel
does not care), `-O3` without fast math (the erf form is what PyTorch computes; nothing to gain from `__expf`).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

CUDA_SRC = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

template <typename scalar_t>
__global__ void gelu_erf_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int64_t n) {
    const int64_t stride = (int64_t)blockDim.x * gridDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = static_cast<float>(x[i]);
        y[i] = static_cast<scalar_t>(0.5f * v * (1.0f + erff(v * 0.70710678118654752f)));
    }
}

template <typename scalar_t>
__global__ void gelu_tanh_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int64_t n) {
    const int64_t stride = (int64_t)blockDim.x * gridDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = static_cast<float>(x[i]);
        const float inner = 0.79788456080286536f * (v + 0.044715f * v * v * v);
        y[i] = static_cast<scalar_t>(0.5f * v * (1.0f + tanhf(inner)));
    }
}

static int64_t grid_for(int64_t n, int threads) {
    return std::min<int64_t>((n + threads - 1) / threads, 65535LL * 8);
}

torch::Tensor gelu_erf_forward(torch::Tensor input) {
    TORCH_CHECK(input.is_cuda(), "gelu_erf_forward: input must be a CUDA tensor");
    auto x = input.contiguous();
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    const int threads = 256;
    AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, x.scalar_type(), "gelu_erf", [&] {
        gelu_erf_kernel<scalar_t><<<grid_for(n, threads), threads>>>(
            x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
    });
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "gelu_erf_kernel launch failed: ", cudaGetErrorString(err));
    return y;
}

torch::Tensor gelu_tanh_forward(torch::Tensor input) {
    TORCH_CHECK(input.is_cuda(), "gelu_tanh_forward: input must be a CUDA tensor");
    auto x = input.contiguous();
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    const int threads = 256;
    AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, x.scalar_type(), "gelu_tanh", [&] {
        gelu_tanh_kernel<scalar_t><<<grid_for(n, threads), threads>>>(
            x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
    });
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "gelu_tanh_kernel launch failed: ", cudaGetErrorString(err));
    return y;
}
"""

CPP_SRC = """
torch::Tensor gelu_erf_forward(torch::Tensor input);
torch::Tensor gelu_tanh_forward(torch::Tensor input);
"""

gelu_ext = load_inline(
    name="kbx_honest_gelu_at_dispatch",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["gelu_erf_forward", "gelu_tanh_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def gelu(input, approximate='none'):
    if approximate == 'tanh':
        return gelu_ext.gelu_tanh_forward(input)
    return gelu_ext.gelu_erf_forward(input)
