"""An honest CUDA argmax: the contiguous input is viewed as (outer, L, inner) around the reduced dimension.

- inner == 1: one warp per row (eight rows per 256-thread block); each lane scans a strided slice of the row
  keeping (value, index), then five `__shfl_down_sync` steps merge the lanes' pairs;
- inner > 1: one thread per output, a sequential scan down the column (neighbouring threads read neighbouring
  addresses).

Ties go to the smallest index and NaN counts as the largest value (its first occurrence wins), as torch.argmax
does; values are compared in fp32, which holds every fp16/bf16 value exactly. The output is int64.
Style: `torch/extension.h`, AT_DISPATCH_FLOATING_TYPES_AND2, `c10::cuda::getCurrentCUDAStream()` from
`<c10/cuda/CUDAStream.h>`, TORCH_CHECK of the launch.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

ARGMAX_CUDA = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

// Whether (v, i) should replace the running best (bv, bi): NaN beats everything, ties go to the lower index.
__device__ __forceinline__ bool takes_over(float v, long long i, float bv, long long bi) {
    const bool v_nan = isnan(v), b_nan = isnan(bv);
    if (v_nan || b_nan) {
        if (v_nan && b_nan) return i < bi;
        return v_nan;
    }
    return v > bv || (v == bv && i < bi);
}

template <typename scalar_t>
__global__ void argmax_rows_kernel(const scalar_t* __restrict__ x, int64_t* __restrict__ out, int64_t rows,
                                   int64_t L) {
    const int lane = threadIdx.x & 31;
    const int64_t row = (int64_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;  // whole warps leave together
    const scalar_t* p = x + row * L;
    float best = -INFINITY;
    long long best_i = 0x7fffffffffffffffLL;
    for (int64_t j = lane; j < L; j += 32) {
        const float v = static_cast<float>(p[j]);
        if (takes_over(v, (long long)j, best, best_i)) {
            best = v;
            best_i = j;
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float other = __shfl_down_sync(0xffffffff, best, offset);
        const long long other_i = __shfl_down_sync(0xffffffff, best_i, offset);
        if (takes_over(other, other_i, best, best_i)) {
            best = other;
            best_i = other_i;
        }
    }
    if (lane == 0) out[row] = best_i;
}

template <typename scalar_t>
__global__ void argmax_columns_kernel(const scalar_t* __restrict__ x, int64_t* __restrict__ out, int64_t outer,
                                      int64_t L, int64_t inner) {
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= outer * inner) return;
    const int64_t o = t / inner;
    const int64_t i = t % inner;
    const scalar_t* p = x + o * L * inner + i;
    float best = static_cast<float>(p[0]);
    int64_t best_i = 0;
    for (int64_t j = 1; j < L; ++j) {
        const float v = static_cast<float>(p[j * inner]);
        if (takes_over(v, (long long)j, best, (long long)best_i)) {
            best = v;
            best_i = j;
        }
    }
    out[t] = best_i;
}

torch::Tensor argmax_3d(torch::Tensor x, int64_t outer, int64_t L, int64_t inner) {
    TORCH_CHECK(x.is_cuda() && x.is_contiguous(), "argmax_3d: a contiguous CUDA tensor expected");
    TORCH_CHECK(L > 0, "argmax_3d: cannot reduce an empty dimension");
    auto out = torch::empty({outer * inner}, x.options().dtype(torch::kLong));
    if (out.numel() == 0) return out;
    cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "argmax_3d", [&] {
        if (inner == 1) {
            const int warps_per_block = 8;
            const int64_t blocks = (outer + warps_per_block - 1) / warps_per_block;
            argmax_rows_kernel<scalar_t><<<(unsigned)blocks, warps_per_block * 32, 0, stream>>>(
                x.data_ptr<scalar_t>(), out.data_ptr<int64_t>(), outer, L);
        } else {
            const int64_t total = outer * inner;
            argmax_columns_kernel<scalar_t><<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(
                x.data_ptr<scalar_t>(), out.data_ptr<int64_t>(), outer, L, inner);
        }
    });
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "argmax kernel: ", cudaGetErrorString(err));
    return out;
}
"""

argmax_ext = load_inline(
    name="kbx_honest_argmax_warp_per_row",
    cpp_sources="torch::Tensor argmax_3d(torch::Tensor x, int64_t outer, int64_t L, int64_t inner);",
    cuda_sources=ARGMAX_CUDA,
    functions=["argmax_3d"],
    extra_cuda_cflags=["-O3", "-Xptxas", "-O3"],
    verbose=False,
)


def argmax(input, dim, keepdim=False):
    shape = list(input.shape)
    d = dim % input.dim()
    x = input.contiguous()
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1:])
    out = argmax_ext.argmax_3d(x, outer, shape[d], inner)
    if keepdim:
        return out.view(shape[:d] + [1] + shape[d + 1:])
    return out.view(shape[:d] + shape[d + 1:])
