"""An honest CUDA cross_entropy (mean reduction over every sample position, class dimension 1): three kernels in
one extension.

- (N, C) inputs: one block per sample, each thread an online log-sum-exp (running max m and sum s, rescaled when
  the max grows), merged across the block in shared memory, then loss = (m - x[target]) + log(s) (the
  difference first: with logits near 1000 it is exact, where m + log(s) would round at 1000's ulp);
- (N, C, d1, ...) inputs: one thread per sample position, walking the classes with stride d1*...; neighbouring
  threads read neighbouring addresses;
- one block sums the per-sample losses and divides by the count of targets that are not `ignore_index` (-100,
  PyTorch's default; the task's targets are all valid), writing the 0-d result in the input's dtype.

fp32 throughout (bf16 widened on load), `expf`/`logf` without fast math, int64 offsets. The merge skips an empty
partial (m = -inf), whose rescale exp(-inf - -inf) would be NaN. Style: `<ATen/ATen.h>` + `<cuda_runtime.h>`,
`at::Tensor`, AT_DISPATCH_FLOATING_TYPES_AND2, a Python wrapper that makes the input contiguous and folds the
trailing dimensions into one.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

CE_CUDA = r"""
#include <ATen/ATen.h>
#include <cuda_runtime.h>

__device__ __forceinline__ void lse_merge(float& m, float& s, float m2, float s2) {
    if (m2 == -INFINITY) return;
    if (m == -INFINITY) { m = m2; s = s2; return; }
    if (m2 > m) { s = s * expf(m - m2) + s2; m = m2; }
    else { s += s2 * expf(m2 - m); }
}

template <typename scalar_t>
__global__ void ce_rows_kernel(const scalar_t* __restrict__ x, const int64_t* __restrict__ target,
                               float* __restrict__ loss, float* __restrict__ valid, int64_t C) {
    __shared__ float sm[32], ss[32];
    const int64_t n = blockIdx.x;
    const scalar_t* row = x + n * C;
    float m = -INFINITY, s = 0.0f;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) lse_merge(m, s, static_cast<float>(row[c]), 1.0f);
    for (int off = 16; off > 0; off >>= 1) {
        const float m2 = __shfl_down_sync(0xffffffff, m, off);
        const float s2 = __shfl_down_sync(0xffffffff, s, off);
        lse_merge(m, s, m2, s2);
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    if (threadIdx.x == 0) {
        float M = -INFINITY, S = 0.0f;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) lse_merge(M, S, sm[w], ss[w]);
        const int64_t t = target[n];
        if (t == -100) {
            loss[n] = 0.0f;
            valid[n] = 0.0f;
        } else {
            loss[n] = (M - static_cast<float>(row[t])) + logf(S);
            valid[n] = 1.0f;
        }
    }
}

template <typename scalar_t>
__global__ void ce_spatial_kernel(const scalar_t* __restrict__ x, const int64_t* __restrict__ target,
                                  float* __restrict__ loss, float* __restrict__ valid, int64_t N, int64_t C,
                                  int64_t D) {
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N * D) return;
    const int64_t n = idx / D, d = idx % D;
    const scalar_t* base = x + n * C * D + d;
    float m = -INFINITY, s = 0.0f;
    for (int64_t c = 0; c < C; ++c) lse_merge(m, s, static_cast<float>(base[c * D]), 1.0f);
    const int64_t t = target[idx];
    if (t == -100) {
        loss[idx] = 0.0f;
        valid[idx] = 0.0f;
    } else {
        loss[idx] = (m - static_cast<float>(base[t * D])) + logf(s);
        valid[idx] = 1.0f;
    }
}

template <typename scalar_t>
__global__ void ce_mean_kernel(const float* __restrict__ loss, const float* __restrict__ valid, int64_t count,
                               scalar_t* __restrict__ out) {
    __shared__ float sl[32], sv[32];
    float l = 0.0f, v = 0.0f;
    for (int64_t i = threadIdx.x; i < count; i += blockDim.x) { l += loss[i]; v += valid[i]; }
    for (int off = 16; off > 0; off >>= 1) {
        l += __shfl_down_sync(0xffffffff, l, off);
        v += __shfl_down_sync(0xffffffff, v, off);
    }
    if ((threadIdx.x & 31) == 0) { sl[threadIdx.x >> 5] = l; sv[threadIdx.x >> 5] = v; }
    __syncthreads();
    if (threadIdx.x == 0) {
        float L = 0.0f, V = 0.0f;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) { L += sl[w]; V += sv[w]; }
        out[0] = static_cast<scalar_t>(L / V);
    }
}

at::Tensor cross_entropy_forward(at::Tensor input, at::Tensor target, int64_t N, int64_t C, int64_t D) {
    TORCH_CHECK(input.is_cuda() && target.is_cuda(), "cross_entropy_forward: CUDA tensors expected");
    TORCH_CHECK(input.is_contiguous() && target.is_contiguous(), "cross_entropy_forward: contiguous inputs expected");
    TORCH_CHECK(target.scalar_type() == at::kLong, "cross_entropy_forward: int64 targets expected");
    TORCH_CHECK(input.numel() == N * C * D && target.numel() == N * D, "cross_entropy_forward: shape mismatch");
    auto fopts = input.options().dtype(at::kFloat);
    at::Tensor loss = at::empty({N * D}, fopts);
    at::Tensor valid = at::empty({N * D}, fopts);
    at::Tensor out = at::empty({}, input.options());
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "cross_entropy_forward", [&] {
        if (D == 1) {
            ce_rows_kernel<scalar_t><<<(unsigned)N, 256>>>(input.data_ptr<scalar_t>(), target.data_ptr<int64_t>(),
                                                          loss.data_ptr<float>(), valid.data_ptr<float>(), C);
        } else {
            const int64_t total = N * D;
            ce_spatial_kernel<scalar_t><<<(unsigned)((total + 255) / 256), 256>>>(
                input.data_ptr<scalar_t>(), target.data_ptr<int64_t>(), loss.data_ptr<float>(),
                valid.data_ptr<float>(), N, C, D);
        }
        ce_mean_kernel<scalar_t><<<1, 1024>>>(loss.data_ptr<float>(), valid.data_ptr<float>(), N * D,
                                              out.data_ptr<scalar_t>());
    });
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "cross_entropy kernels: ", cudaGetErrorString(err));
    return out;
}
"""

CE_CPP = "at::Tensor cross_entropy_forward(at::Tensor input, at::Tensor target, int64_t N, int64_t C, int64_t D);"

ce_ext = load_inline(
    name="kbx_honest_cross_entropy_online_lse",
    cpp_sources=CE_CPP,
    cuda_sources=CE_CUDA,
    functions=["cross_entropy_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def cross_entropy(input, target):
    if input.dim() == 1:  # one unbatched sample
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    n, c = input.shape[0], input.shape[1]
    d = math.prod(input.shape[2:])
    return ce_ext.cross_entropy_forward(input.contiguous(), target.contiguous(), n, c, d)
