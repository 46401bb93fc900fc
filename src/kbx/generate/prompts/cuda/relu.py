"""ReLU as a CUDA extension built with `load_inline` at module level (KernelBench's form): an honest CUDA candidate
for kbx's `relu` task, and the example answer shown to models asked for a CUDA candidate of any other task (a copy
ships as `kbx/generate/prompts/cuda/relu.py`). Not part of the suite; not yet run on a GPU (docs/evaluation.md).

One grid-stride pass over the flattened input (made contiguous first), in the input's own dtype: a compare and a
select, so -0.0 and NaN pass through as `torch.relu` lets them. The kernel is launched on the default stream, which
is torch's current stream unless the caller chose another.
"""

from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>

template <typename scalar_t>
__global__ void relu_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int64_t n) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const scalar_t v = x[i];
        y[i] = v < scalar_t(0) ? scalar_t(0) : v;
    }
}

torch::Tensor relu_forward(torch::Tensor input) {
    TORCH_CHECK(input.is_cuda(), "relu_forward: the input must be on a CUDA device");
    auto x = input.contiguous();
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) {
        return y;
    }
    const int threads = 256;
    const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 1 << 20);
    AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, x.scalar_type(), "relu_forward",
        [&] {
            relu_kernel<scalar_t><<<blocks, threads>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
        });
    const cudaError_t launched = cudaGetLastError();
    TORCH_CHECK(launched == cudaSuccess, "kernel launch failed: ", cudaGetErrorString(launched));
    return y;
}
"""

CPP_SOURCE = "torch::Tensor relu_forward(torch::Tensor input);"

relu_ext = load_inline(
    name="kbx_relu_cuda",
    cpp_sources=CPP_SOURCE,
    cuda_sources=CUDA_SOURCE,
    functions=["relu_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def relu(input):
    return relu_ext.relu_forward(input)
