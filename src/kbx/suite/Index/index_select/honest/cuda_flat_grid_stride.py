"""An honest CUDA index_select: the contiguous input is viewed as (outer, size, inner) around `dim` and the output
as (outer, n_index, inner); one grid-stride loop over the output's elements splits each linear index into (o, k,
i), reads index[k] and copies input[o, index[k], i]. Neighbouring threads take neighbouring i, so both sides are
coalesced whenever inner > 1; for the last dimension (inner = 1) the reads scatter and the writes stay coalesced.

All arithmetic on indices is int64: `bench_over_2_31` writes 2^31 + 1024 elements. The copy is bitwise (exact
contract). Style: `<ATen/ATen.h>` + `<cuda_runtime.h>` in the CUDA source, `at::Tensor`, the launch configuration
capped at a multiple of the SM count read with `cudaDeviceGetAttribute`, AT_DISPATCH_ALL_TYPES_AND2 (any dtype),
a Python wrapper that normalises `dim` and computes the view's sizes.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

INDEX_SELECT_CUDA = r"""
#include <ATen/ATen.h>
#include <cuda_runtime.h>

template <typename scalar_t>
__global__ void index_select_kernel(const scalar_t* __restrict__ src, const int64_t* __restrict__ index,
                                    scalar_t* __restrict__ dst, int64_t n_index, int64_t size, int64_t inner,
                                    int64_t total) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        const int64_t i = t % inner;
        const int64_t rest = t / inner;
        const int64_t k = rest % n_index;
        const int64_t o = rest / n_index;
        const int64_t row = index[k];
        dst[t] = src[(o * size + row) * inner + i];
    }
}

at::Tensor index_select_3d(at::Tensor input, at::Tensor index, int64_t outer, int64_t size, int64_t inner) {
    TORCH_CHECK(input.is_cuda() && index.is_cuda(), "index_select_3d: CUDA tensors expected");
    TORCH_CHECK(index.scalar_type() == at::kLong, "index_select_3d: int64 index expected");
    at::Tensor x = input.contiguous();
    at::Tensor idx = index.contiguous();
    TORCH_CHECK(x.numel() == outer * size * inner, "index_select_3d: sizes do not match the input");
    const int64_t n_index = idx.numel();
    at::Tensor out = at::empty({outer, n_index, inner}, x.options());
    const int64_t total = out.numel();
    if (total == 0) return out;
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const int threads = 256;
    const int64_t max_blocks = (int64_t)sms * 32;
    const int64_t blocks = std::min<int64_t>((total + threads - 1) / threads, max_blocks);
    AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "index_select_3d", [&] {
        index_select_kernel<scalar_t><<<(unsigned)blocks, threads>>>(
            x.data_ptr<scalar_t>(), idx.data_ptr<int64_t>(), out.data_ptr<scalar_t>(), n_index, size, inner, total);
    });
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "index_select_kernel: ", cudaGetErrorString(err));
    return out;
}
"""

INDEX_SELECT_CPP = ("at::Tensor index_select_3d(at::Tensor input, at::Tensor index, int64_t outer, int64_t size, "
                    "int64_t inner);")

index_select_ext = load_inline(
    name="kbx_honest_index_select_flat",
    cpp_sources=INDEX_SELECT_CPP,
    cuda_sources=INDEX_SELECT_CUDA,
    functions=["index_select_3d"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def index_select(input, dim, index):
    if input.dim() == 0:
        return index_select_ext.index_select_3d(input.reshape(1), index.reshape(-1), 1, 1, 1).reshape(())
    d = dim % input.dim()
    shape = list(input.shape)
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1:])
    out = index_select_ext.index_select_3d(input, index.reshape(-1), outer, shape[d], inner)
    return out.view(shape[:d] + [index.numel()] + shape[d + 1:])
