"""An honest CUDA mse_loss with all three reductions: 'none' is one elementwise kernel; 'sum' and 'mean' are a
grid-stride kernel whose blocks each reduce their fp32 partial sum (warp shuffles, then shared memory) and add it
to one fp32 accumulator with `atomicAdd`, followed by a one-thread kernel that divides by n (in double: n may
exceed 2^31) and rounds to the input's dtype. The order of the atomic additions varies from run to run; each block
already sums thousands of squares, so the fp32 result moves by a few ulps at most.

Style: `torch/extension.h`, the reduction passed to C++ as a `std::string`, `torch::zeros` for the accumulator,
AT_DISPATCH_FLOATING_TYPES_AND2, grid-stride loops with int64 indices (`bench_over_2_31`), `-O3 --use_fast_math`
(squares and sums only: fast math changes nothing but denormal flushing, which the contract's 2^-126 floor covers).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

MSE_CUDA = r"""
#include <torch/extension.h>
#include <string>

template <typename scalar_t>
__global__ void squared_error_kernel(const scalar_t* __restrict__ a, const scalar_t* __restrict__ b,
                                     scalar_t* __restrict__ out, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)blockDim.x * gridDim.x) {
        const float d = static_cast<float>(a[i]) - static_cast<float>(b[i]);
        out[i] = static_cast<scalar_t>(d * d);
    }
}

template <typename scalar_t>
__global__ void squared_error_sum_kernel(const scalar_t* __restrict__ a, const scalar_t* __restrict__ b,
                                         float* __restrict__ acc, int64_t n) {
    __shared__ float warp_partial[32];
    float local = 0.0f;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)blockDim.x * gridDim.x) {
        const float d = static_cast<float>(a[i]) - static_cast<float>(b[i]);
        local += d * d;
    }
    for (int offset = warpSize / 2; offset > 0; offset /= 2) local += __shfl_down_sync(0xffffffff, local, offset);
    if (threadIdx.x % warpSize == 0) warp_partial[threadIdx.x / warpSize] = local;
    __syncthreads();
    if (threadIdx.x < warpSize) {
        local = threadIdx.x < blockDim.x / warpSize ? warp_partial[threadIdx.x] : 0.0f;
        for (int offset = warpSize / 2; offset > 0; offset /= 2) local += __shfl_down_sync(0xffffffff, local, offset);
        if (threadIdx.x == 0) atomicAdd(acc, local);
    }
}

template <typename scalar_t>
__global__ void finalize_kernel(const float* __restrict__ acc, scalar_t* __restrict__ out, double divisor) {
    out[0] = static_cast<scalar_t>(static_cast<float>(static_cast<double>(acc[0]) / divisor));
}

torch::Tensor mse_loss_forward(torch::Tensor input, torch::Tensor target, std::string reduction) {
    TORCH_CHECK(input.sizes() == target.sizes(), "mse_loss_forward: input and target must have one shape");
    TORCH_CHECK(input.scalar_type() == target.scalar_type(), "mse_loss_forward: one dtype expected");
    auto a = input.contiguous();
    auto b = target.contiguous();
    const int64_t n = a.numel();
    const int threads = 256;
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>((n + threads - 1) / threads, 132 * 32));
    if (reduction == "none") {
        auto out = torch::empty_like(a);
        if (n == 0) return out;
        AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, a.scalar_type(), "mse_none", [&] {
            squared_error_kernel<scalar_t><<<blocks, threads>>>(
                a.data_ptr<scalar_t>(), b.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), n);
        });
        TORCH_CHECK(cudaGetLastError() == cudaSuccess, "squared_error_kernel failed");
        return out;
    }
    TORCH_CHECK(reduction == "sum" || reduction == "mean", "mse_loss_forward: unknown reduction ", reduction);
    auto acc = torch::zeros({1}, a.options().dtype(torch::kFloat32));
    auto out = torch::empty({}, a.options());
    const double divisor = reduction == "mean" ? static_cast<double>(n) : 1.0;
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, a.scalar_type(), "mse_reduce", [&] {
        if (n > 0) {
            squared_error_sum_kernel<scalar_t><<<blocks, threads>>>(
                a.data_ptr<scalar_t>(), b.data_ptr<scalar_t>(), acc.data_ptr<float>(), n);
        }
        finalize_kernel<scalar_t><<<1, 1>>>(acc.data_ptr<float>(), out.data_ptr<scalar_t>(), divisor);
    });
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "mse reduction kernels failed");
    return out;
}
"""

mse_ext = load_inline(
    name="kbx_honest_mse_loss_atomic",
    cpp_sources="torch::Tensor mse_loss_forward(torch::Tensor input, torch::Tensor target, std::string reduction);",
    cuda_sources=MSE_CUDA,
    functions=["mse_loss_forward"],
    extra_cuda_cflags=["-O3", "--use_fast_math"],
    verbose=False,
)


def mse_loss(input, target, reduction="mean"):
    return mse_ext.mse_loss_forward(input, target, reduction)
