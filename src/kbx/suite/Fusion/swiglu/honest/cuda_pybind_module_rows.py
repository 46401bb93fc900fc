"""An honest fused CUDA SwiGLU, silu(gate) * up, in the other common load_inline form: no `functions=` argument,
the C++ source declares its own `PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)` and binds `forward`.

The packed layout (gate and up the two halves of one [..., 2n] tensor) needs no copy: the wrapper checks that each
operand's rows are evenly spaced with unit stride inside a row and passes the row stride (2n there); any other
layout (transposed) is made contiguous first. One 2-D grid: blockIdx.y walks rows (with a grid-stride loop past
65,535), blockIdx.x and the threads walk columns. silu(g) * u = g * u / (1 + exp(-g)) in fp32 with `__expf`
under `--use_fast_math` (a few ulp, inside the fp32-arithmetic allowance; exp(-g) = inf for g << 0 gives -0, the
true value being below 1e-40), rounded once to the inputs' dtype (bf16 or fp32).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

SWIGLU_CUDA = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

template <typename scalar_t>
__global__ void swiglu_rows_kernel(const scalar_t* __restrict__ gate, const scalar_t* __restrict__ up,
                                   scalar_t* __restrict__ out, int64_t rows, int64_t n, int64_t gate_stride,
                                   int64_t up_stride) {
    const int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= n) return;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const float g = static_cast<float>(gate[r * gate_stride + col]);
        const float u = static_cast<float>(up[r * up_stride + col]);
        out[r * n + col] = static_cast<scalar_t>(g / (1.0f + __expf(-g)) * u);
    }
}

torch::Tensor swiglu_forward(torch::Tensor gate, torch::Tensor up, int64_t rows, int64_t n, int64_t gate_stride,
                             int64_t up_stride) {
    TORCH_CHECK(gate.is_cuda() && up.is_cuda(), "swiglu_forward: CUDA tensors expected");
    TORCH_CHECK(gate.scalar_type() == up.scalar_type(), "swiglu_forward: gate and up must share a dtype");
    auto out = torch::empty({rows, n}, gate.options().memory_format(at::MemoryFormat::Contiguous));
    if (rows == 0 || n == 0) return out;
    const int threads = 256;
    const dim3 grid((unsigned)((n + threads - 1) / threads), (unsigned)std::min<int64_t>(rows, 65535));
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, gate.scalar_type(), "swiglu_forward", [&] {
        swiglu_rows_kernel<scalar_t><<<grid, threads>>>(gate.data_ptr<scalar_t>(), up.data_ptr<scalar_t>(),
                                                        out.data_ptr<scalar_t>(), rows, n, gate_stride, up_stride);
    });
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "swiglu_rows_kernel: ", cudaGetErrorString(err));
    return out;
}
"""

SWIGLU_CPP = r"""
torch::Tensor swiglu_forward(torch::Tensor gate, torch::Tensor up, int64_t rows, int64_t n, int64_t gate_stride,
                             int64_t up_stride);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &swiglu_forward, "fused silu(gate) * up (CUDA)");
}
"""

swiglu_ext = load_inline(
    name="kbx_honest_swiglu_pybind_rows",
    cpp_sources=SWIGLU_CPP,
    cuda_sources=SWIGLU_CUDA,
    extra_cuda_cflags=["-O3", "--use_fast_math"],
    verbose=False,
)


def _as_rows(t, n):
    """(tensor, row stride) with unit stride inside rows and evenly spaced rows, copying only when needed."""
    if t.dim() >= 2 and t.stride(-1) == 1:
        even = all(t.stride(d) == t.stride(d + 1) * t.shape[d + 1] for d in range(t.dim() - 2))
        if even:
            return t, t.stride(-2)
    return t.contiguous(), n


def swiglu(gate, up):
    n = gate.shape[-1] if gate.dim() > 0 else 1
    rows = gate.numel() // n if n else 0
    g, g_stride = _as_rows(gate, n)
    u, u_stride = _as_rows(up, n)
    out = swiglu_ext.forward(g, u, rows, n, g_stride, u_stride)
    return out.view(gate.shape)
