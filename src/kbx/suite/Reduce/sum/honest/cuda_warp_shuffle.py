"""An honest CUDA sum over one or several dimensions, written the usual way: the wrapper views the (contiguous)
input as (outer, L, inner) when the reduced dimensions are adjacent, and otherwise permutes the kept dimensions to
the front and the reduced ones to the back (one copy) so that inner = 1. Two kernels in one extension:

- inner == 1 (rows): one block per row, each thread a strided fp32 partial sum, then `__shfl_down_sync` within
  each warp and a second warp over the per-warp partials in shared memory;
- inner > 1 (columns): a 32 x 8 block, threadIdx.x along the inner dimension (coalesced loads), threadIdx.y over
  slices of L, the eight partials combined in shared memory.

Accumulation is fp32 for bf16 and fp32 (one rounding at the store), offsets int64 (`bench_over_2_31`).
Style: `torch/extension.h`, AT_DISPATCH_FLOATING_TYPES_AND2, `C10_CUDA_KERNEL_LAUNCH_CHECK` via
`<c10/cuda/CUDAException.h>`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

SUM_CUDA = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>

__inline__ __device__ float warp_reduce_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    return v;
}

template <typename scalar_t>
__global__ void sum_rows_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ out, int64_t L) {
    __shared__ float warp_sums[32];
    const int64_t row = blockIdx.x;
    const scalar_t* row_ptr = x + row * L;
    float acc = 0.0f;
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x) {
        acc += static_cast<float>(row_ptr[j]);
    }
    acc = warp_reduce_sum(acc);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        const int num_warps = (blockDim.x + 31) >> 5;
        float v = lane < num_warps ? warp_sums[lane] : 0.0f;
        v = warp_reduce_sum(v);
        if (lane == 0) out[row] = static_cast<scalar_t>(v);
    }
}

template <typename scalar_t>
__global__ void sum_columns_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ out, int64_t L,
                                   int64_t inner, int64_t tiles) {
    __shared__ float partial[8][33];
    const int64_t o = blockIdx.x / tiles;
    const int64_t i = (blockIdx.x % tiles) * 32 + threadIdx.x;
    float acc = 0.0f;
    if (i < inner) {
        const scalar_t* base = x + o * L * inner + i;
        for (int64_t j = threadIdx.y; j < L; j += 8) {
            acc += static_cast<float>(base[j * inner]);
        }
    }
    partial[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && i < inner) {
        float total = 0.0f;
        for (int k = 0; k < 8; ++k) total += partial[k][threadIdx.x];
        out[o * inner + i] = static_cast<scalar_t>(total);
    }
}

torch::Tensor sum_3d(torch::Tensor x, int64_t outer, int64_t L, int64_t inner) {
    TORCH_CHECK(x.is_cuda() && x.is_contiguous(), "sum_3d: a contiguous CUDA tensor expected");
    TORCH_CHECK(outer * L * inner == x.numel(), "sum_3d: shape does not match the input");
    auto out = torch::empty({outer * inner}, x.options());
    if (out.numel() == 0) return out;
    if (L == 0) return out.zero_();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "sum_3d", [&] {
        if (inner == 1) {
            sum_rows_kernel<scalar_t><<<(unsigned)outer, 512>>>(x.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), L);
        } else {
            const int64_t tiles = (inner + 31) / 32;
            sum_columns_kernel<scalar_t><<<(unsigned)(outer * tiles), dim3(32, 8)>>>(
                x.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), L, inner, tiles);
        }
    });
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

SUM_CPP = "torch::Tensor sum_3d(torch::Tensor x, int64_t outer, int64_t L, int64_t inner);"

sum_ext = load_inline(
    name="kbx_honest_sum_warp_shuffle",
    cpp_sources=SUM_CPP,
    cuda_sources=SUM_CUDA,
    functions=["sum_3d"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def sum(input, dim, keepdim=False):
    nd = input.dim()
    dims = [dim] if isinstance(dim, int) else list(dim)
    dims = sorted({d % nd for d in dims})
    shape = list(input.shape)
    x = input.contiguous()
    if dims == list(range(dims[0], dims[-1] + 1)):
        outer = math.prod(shape[: dims[0]])
        length = math.prod(shape[dims[0] : dims[-1] + 1])
        inner = math.prod(shape[dims[-1] + 1 :])
    else:
        kept = [d for d in range(nd) if d not in dims]
        x = x.permute(kept + dims).contiguous()
        outer = math.prod(shape[d] for d in kept)
        length = math.prod(shape[d] for d in dims)
        inner = 1
    out = sum_ext.sum_3d(x, outer, length, inner)
    if keepdim:
        out_shape = [1 if d in dims else s for d, s in enumerate(shape)]
    else:
        out_shape = [s for d, s in enumerate(shape) if d not in dims]
    return out.view(out_shape)
