"""An honest CUDA gather that reads both tensors through their strides (no `.contiguous()` copies): each thread
takes one output element, splits its linear index into coordinates over the index tensor's shape, replaces the
coordinate along `dim` by the index value, and reads the input at those coordinates through the input's strides;
the index is read through its own strides. Transposed inputs and strided indices therefore cost no copy. Sizes and
strides travel to the kernel in a by-value struct (up to 8 dims); all offsets are int64.

Exact copy, as the contract asks. Style: `torch/extension.h`, `TORCH_CHECK`s mirroring gather's shape rule
(index.size(d) <= input.size(d) for d != dim), AT_DISPATCH_FLOATING_TYPES_AND2, a 1-D grid of 128-thread blocks.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

GATHER_CUDA = r"""
#include <torch/extension.h>

struct GatherGeometry {
    int ndim;
    int dim;
    int64_t sizes[8];          // the index's (= the output's) sizes
    int64_t input_strides[8];
    int64_t index_strides[8];
};

template <typename scalar_t>
__global__ void gather_kernel(const scalar_t* __restrict__ input, const int64_t* __restrict__ index,
                              scalar_t* __restrict__ out, GatherGeometry g, int64_t total) {
    const int64_t pos = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= total) return;
    int64_t rem = pos;
    int64_t in_off = 0, idx_off = 0, dim_coord_stride = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
        const int64_t c = rem % g.sizes[d];
        rem /= g.sizes[d];
        idx_off += c * g.index_strides[d];
        if (d == g.dim) {
            dim_coord_stride = g.input_strides[d];
        } else {
            in_off += c * g.input_strides[d];
        }
    }
    const int64_t k = index[idx_off];
    out[pos] = input[in_off + k * dim_coord_stride];
}

torch::Tensor gather_forward(torch::Tensor input, int64_t dim, torch::Tensor index) {
    TORCH_CHECK(index.scalar_type() == torch::kLong, "gather_forward: int64 index expected");
    TORCH_CHECK(input.dim() == index.dim() || (input.dim() == 0 && index.dim() <= 1),
                "gather_forward: index must have the input's number of dimensions");
    TORCH_CHECK(index.dim() <= 8, "gather_forward: at most 8 dimensions");
    const int ndim = (int)index.dim();
    if (ndim > 0) {
        dim = dim < 0 ? dim + ndim : dim;
        TORCH_CHECK(dim >= 0 && dim < ndim, "gather_forward: dim out of range");
    }
    GatherGeometry g;
    g.ndim = ndim;
    g.dim = (int)dim;
    for (int d = 0; d < ndim; ++d) {
        if (d != dim) TORCH_CHECK(index.size(d) <= input.size(d), "gather_forward: index larger than input at ", d);
        g.sizes[d] = index.size(d);
        g.input_strides[d] = input.dim() == 0 ? 0 : input.stride(d);
        g.index_strides[d] = index.stride(d);
    }
    auto out = torch::empty(index.sizes(), input.options());
    const int64_t total = out.numel();
    if (total == 0) return out;
    const int threads = 128;
    const int64_t blocks = (total + threads - 1) / threads;
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "gather_forward", [&] {
        gather_kernel<scalar_t><<<(unsigned)blocks, threads>>>(
            input.data_ptr<scalar_t>(), index.data_ptr<int64_t>(), out.data_ptr<scalar_t>(), g, total);
    });
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "gather_kernel failed to launch");
    return out;
}
"""

gather_ext = load_inline(
    name="kbx_honest_gather_stride_aware",
    cpp_sources="torch::Tensor gather_forward(torch::Tensor input, int64_t dim, torch::Tensor index);",
    cuda_sources=GATHER_CUDA,
    functions=["gather_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def gather(input, dim, index):
    return gather_ext.gather_forward(input, dim, index)
