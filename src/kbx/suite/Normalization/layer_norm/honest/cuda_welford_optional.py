"""An honest CUDA layer_norm: one block per normalised row, a one-pass Welford (count, mean, M2) per thread merged
across the warp with `__shfl_down_sync` and across warps in shared memory (Chan's parallel formula), then a second
sweep writing (x - mean) * rstd * weight + bias. Statistics and arithmetic in fp32 (bf16 inputs are widened on
load, the output rounded once); the variance is the biased one, as layer_norm uses.

Style: `torch/extension.h`, optional weight and bias passed straight through as `c10::optional<torch::Tensor>`
(pybind turns Python's None into an empty optional), AT_DISPATCH_FLOATING_TYPES_AND2, `TORCH_CHECK`s on shapes,
`rsqrtf`, no fast math (the contract's fp32 tolerance is tight and the row statistics are where it goes).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

LN_CUDA = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

struct Welford {
    float n, mean, m2;
};

__device__ __forceinline__ Welford welford_merge(Welford a, Welford b) {
    const float n = a.n + b.n;
    if (n == 0.0f) return a;
    const float delta = b.mean - a.mean;
    const float wb = b.n / n;
    Welford r;
    r.n = n;
    r.mean = a.mean + delta * wb;
    r.m2 = a.m2 + b.m2 + delta * delta * a.n * wb;
    return r;
}

__device__ __forceinline__ Welford warp_welford(Welford w) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        Welford o;
        o.n = __shfl_down_sync(0xffffffff, w.n, offset);
        o.mean = __shfl_down_sync(0xffffffff, w.mean, offset);
        o.m2 = __shfl_down_sync(0xffffffff, w.m2, offset);
        w = welford_merge(w, o);
    }
    return w;
}

template <typename scalar_t>
__global__ void layer_norm_kernel(const scalar_t* __restrict__ x, const scalar_t* __restrict__ weight,
                                  const scalar_t* __restrict__ bias, scalar_t* __restrict__ y, int64_t N,
                                  float eps) {
    __shared__ Welford partial[32];
    __shared__ float stats[2];
    const int64_t row = blockIdx.x;
    const scalar_t* xr = x + row * N;
    scalar_t* yr = y + row * N;

    Welford w{0.0f, 0.0f, 0.0f};
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
        const float v = static_cast<float>(xr[j]);
        w.n += 1.0f;
        const float delta = v - w.mean;
        w.mean += delta / w.n;
        w.m2 += delta * (v - w.mean);
    }
    w = warp_welford(w);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) partial[warp] = w;
    __syncthreads();
    if (warp == 0) {
        Welford v = lane < (int)(blockDim.x / 32) ? partial[lane] : Welford{0.0f, 0.0f, 0.0f};
        v = warp_welford(v);
        if (lane == 0) {
            stats[0] = v.mean;
            stats[1] = rsqrtf(v.m2 / (float)N + eps);
        }
    }
    __syncthreads();
    const float mean = stats[0], rstd = stats[1];
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
        float v = (static_cast<float>(xr[j]) - mean) * rstd;
        if (weight != nullptr) v *= static_cast<float>(weight[j]);
        if (bias != nullptr) v += static_cast<float>(bias[j]);
        yr[j] = static_cast<scalar_t>(v);
    }
}

torch::Tensor layer_norm_forward(torch::Tensor input, int64_t N, c10::optional<torch::Tensor> weight,
                                 c10::optional<torch::Tensor> bias, double eps) {
    TORCH_CHECK(input.is_cuda(), "layer_norm_forward: CUDA input expected");
    TORCH_CHECK(N > 0 && input.numel() % N == 0, "layer_norm_forward: bad normalized size");
    auto x = input.contiguous();
    auto y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    const int64_t rows = x.numel() / N;
    torch::Tensor w, b;
    if (weight.has_value()) {
        w = weight->contiguous();
        TORCH_CHECK(w.numel() == N && w.scalar_type() == x.scalar_type(), "layer_norm_forward: bad weight");
    }
    if (bias.has_value()) {
        b = bias->contiguous();
        TORCH_CHECK(b.numel() == N && b.scalar_type() == x.scalar_type(), "layer_norm_forward: bad bias");
    }
    const int threads = N >= 4096 ? 1024 : (N >= 1024 ? 512 : 128);
    AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, x.scalar_type(),
                                    "layer_norm_forward", [&] {
        layer_norm_kernel<scalar_t><<<(unsigned)rows, threads>>>(
            x.data_ptr<scalar_t>(), w.defined() ? w.data_ptr<scalar_t>() : nullptr,
            b.defined() ? b.data_ptr<scalar_t>() : nullptr, y.data_ptr<scalar_t>(), N, (float)eps);
    });
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "layer_norm_kernel: ", cudaGetErrorString(err));
    return y;
}
"""

LN_CPP = """
torch::Tensor layer_norm_forward(torch::Tensor input, int64_t N, c10::optional<torch::Tensor> weight,
                                 c10::optional<torch::Tensor> bias, double eps);
"""

ln_ext = load_inline(
    name="kbx_honest_layer_norm_welford",
    cpp_sources=LN_CPP,
    cuda_sources=LN_CUDA,
    functions=["layer_norm_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    return ln_ext.layer_norm_forward(input, math.prod(shape), weight, bias, float(eps))
