"""An honest CUDA add that broadcasts by strides instead of copying: the Python wrapper expands both operands to the
broadcast shape (views with stride 0 along broadcast dimensions) and the kernel turns each output's linear index
into coordinates and reads each operand through its own strides, so transposed, strided and broadcast operands all
take the same path without `.contiguous()` copies. A Python number `other` goes to a second function of the same
extension, kept in fp32 rather than rounded to the tensor's dtype first (PyTorch keeps a scalar operand at opmath
precision too).

Style: `torch/extension.h`, `AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, ...)`, `at::acc_type<scalar_t, true>`
for the arithmetic (fp32 for bf16), a by-value struct of sizes and strides (up to 8 dims), int64 everywhere.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

CUDA_SRC = r"""
#include <torch/extension.h>
#include <ATen/AccumulateType.h>

constexpr int MAX_DIMS = 8;

struct Layout {
    int ndim;
    int64_t sizes[MAX_DIMS];
    int64_t a_strides[MAX_DIMS];
    int64_t b_strides[MAX_DIMS];
};

template <typename scalar_t>
__global__ void add_broadcast_kernel(const scalar_t* __restrict__ a, const scalar_t* __restrict__ b,
                                     scalar_t* __restrict__ out, Layout layout, float alpha, int64_t n) {
    using acc_t = at::acc_type<scalar_t, true>;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t rest = i;
        int64_t a_off = 0, b_off = 0;
        for (int d = layout.ndim - 1; d >= 0; --d) {
            const int64_t coord = rest % layout.sizes[d];
            rest /= layout.sizes[d];
            a_off += coord * layout.a_strides[d];
            b_off += coord * layout.b_strides[d];
        }
        const acc_t av = static_cast<acc_t>(a[a_off]);
        const acc_t bv = static_cast<acc_t>(b[b_off]);
        out[i] = static_cast<scalar_t>(av + static_cast<acc_t>(alpha) * bv);
    }
}

template <typename scalar_t>
__global__ void add_scalar_kernel(const scalar_t* __restrict__ a, scalar_t* __restrict__ out, Layout layout,
                                  float addend, int64_t n) {
    using acc_t = at::acc_type<scalar_t, true>;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t rest = i;
        int64_t a_off = 0;
        for (int d = layout.ndim - 1; d >= 0; --d) {
            const int64_t coord = rest % layout.sizes[d];
            rest /= layout.sizes[d];
            a_off += coord * layout.a_strides[d];
        }
        out[i] = static_cast<scalar_t>(static_cast<acc_t>(a[a_off]) + static_cast<acc_t>(addend));
    }
}

static Layout make_layout(const torch::Tensor& a, const torch::Tensor* b) {
    TORCH_CHECK(a.dim() <= MAX_DIMS, "add: at most ", MAX_DIMS, " dimensions");
    Layout layout;
    layout.ndim = (int)a.dim();
    for (int d = 0; d < layout.ndim; ++d) {
        layout.sizes[d] = a.size(d);
        layout.a_strides[d] = a.stride(d);
        layout.b_strides[d] = b ? b->stride(d) : 0;
    }
    return layout;
}

static int64_t blocks_for(int64_t n) {
    return std::min<int64_t>((n + 255) / 256, 65536);
}

torch::Tensor add_tensor(torch::Tensor a, torch::Tensor b, double alpha) {
    TORCH_CHECK(a.is_cuda() && b.is_cuda(), "add_tensor: CUDA tensors expected");
    TORCH_CHECK(a.sizes() == b.sizes(), "add_tensor: operands must be expanded to one shape");
    TORCH_CHECK(a.scalar_type() == b.scalar_type(), "add_tensor: operands must share a dtype");
    auto out = torch::empty(a.sizes(), a.options().memory_format(at::MemoryFormat::Contiguous));
    const int64_t n = out.numel();
    if (n == 0) return out;
    const Layout layout = make_layout(a, &b);
    AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, a.scalar_type(), "add_tensor", [&] {
        add_broadcast_kernel<scalar_t><<<blocks_for(n), 256>>>(
            a.data_ptr<scalar_t>(), b.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), layout, (float)alpha, n);
    });
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "add_broadcast_kernel failed to launch");
    return out;
}

torch::Tensor add_scalar(torch::Tensor a, double other, double alpha) {
    TORCH_CHECK(a.is_cuda(), "add_scalar: a CUDA tensor expected");
    auto out = torch::empty(a.sizes(), a.options().memory_format(at::MemoryFormat::Contiguous));
    const int64_t n = out.numel();
    if (n == 0) return out;
    const Layout layout = make_layout(a, nullptr);
    const float addend = (float)(alpha * other);
    AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, a.scalar_type(), "add_scalar", [&] {
        add_scalar_kernel<scalar_t><<<blocks_for(n), 256>>>(
            a.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), layout, addend, n);
    });
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "add_scalar_kernel failed to launch");
    return out;
}
"""

CPP_SRC = """
torch::Tensor add_tensor(torch::Tensor a, torch::Tensor b, double alpha);
torch::Tensor add_scalar(torch::Tensor a, double other, double alpha);
"""

add_ext = load_inline(
    name="kbx_honest_add_broadcast_strides",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["add_tensor", "add_scalar"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def add(input, other, alpha=1):
    if not isinstance(other, torch.Tensor):
        return add_ext.add_scalar(input, float(other), float(alpha))
    shape = torch.broadcast_shapes(input.shape, other.shape)
    return add_ext.add_tensor(input.expand(shape), other.expand(shape), float(alpha))
