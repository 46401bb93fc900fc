"""Sigmoid as a CUDA extension built with `load_inline` at module level: the example answer shown to models asked
for a CUDA candidate of `relu` (`kbx prompt relu --backend cuda`). Not yet run on a GPU.

One grid-stride pass over the flattened input (made contiguous first). Each element is computed in fp32 and
rounded once to the input's dtype, as PyTorch does; for x below about -88.7, exp(-x) overflows to +inf and the
quotient is 0, as it should be. The kernel is launched on the default stream, which is torch's current stream
unless the caller chose another.
"""

from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>

template <typename scalar_t>
__global__ void sigmoid_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int64_t n) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = static_cast<float>(x[i]);
        y[i] = static_cast<scalar_t>(1.0f / (1.0f + expf(-v)));
    }
}

torch::Tensor sigmoid_forward(torch::Tensor input) {
    TORCH_CHECK(input.is_cuda(), "sigmoid_forward: the input must be on a CUDA device");
    auto x = input.contiguous();
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) {
        return y;
    }
    const int threads = 256;
    const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 1 << 20);
    AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, x.scalar_type(),
        "sigmoid_forward", [&] {
            sigmoid_kernel<scalar_t><<<blocks, threads>>>(
                x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
        });
    const cudaError_t launched = cudaGetLastError();
    TORCH_CHECK(launched == cudaSuccess, "kernel launch failed: ", cudaGetErrorString(launched));
    return y;
}
"""

CPP_SOURCE = "torch::Tensor sigmoid_forward(torch::Tensor input);"

sigmoid_ext = load_inline(
    name="kbx_sigmoid_cuda",
    cpp_sources=CPP_SOURCE,
    cuda_sources=CUDA_SOURCE,
    functions=["sigmoid_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def sigmoid(input):
    return sigmoid_ext.sigmoid_forward(input)
