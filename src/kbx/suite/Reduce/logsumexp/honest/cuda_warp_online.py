"""An honest CUDA logsumexp: reduced dims permuted last and reshaped to (rows, n) (a copy made contiguous in C++),
one warp per row; each lane keeps an online (max, sum of exp(x - max)) pair in fp32 with expf/logf (no fast math),
the warp merges the pairs with __shfl_xor_sync, and a row whose max is ±inf returns it. Style: `torch/extension.h`,
AT_DISPATCH_FLOATING_TYPES_AND2 for fp32 and bf16, the default stream, a `__device__` merge helper.

Compiles with nvcc and passes the static stage on the CPU (not judged there: it needs a GPU).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

LSE_CUDA = r"""
#include <torch/extension.h>
#include <cmath>

__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    const float mx = fmaxf(m, m2);
    const float safe = isinf(mx) ? 0.f : mx;
    s = s * expf(m - safe) + s2 * expf(m2 - safe);
    m = mx;
}

template <typename scalar_t>
__global__ void lse_rows(const scalar_t* __restrict__ x, scalar_t* __restrict__ out, int64_t rows, int64_t n) {
    const int64_t row = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;
    float m = -INFINITY, s = 0.f;
    for (int64_t k = lane; k < n; k += 32) {
        const float v = static_cast<float>(x[row * n + k]);
        merge(m, s, v, isinf(v) && v < 0 ? 0.f : 1.f);
    }
    for (int off = 16; off > 0; off >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffff, m, off);
        const float s2 = __shfl_xor_sync(0xffffffff, s, off);
        merge(m, s, m2, s2);
    }
    if (lane == 0) out[row] = static_cast<scalar_t>(isinf(m) ? m : m + logf(s));
}

torch::Tensor lse(torch::Tensor x2d) {
    auto x = x2d.contiguous();
    const int64_t rows = x.size(0), n = x.size(1);
    auto out = torch::empty({rows}, x.options());
    if (rows == 0) return out;
    const int warps = 8;
    const dim3 grid((unsigned)((rows + warps - 1) / warps));
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "lse_rows", [&] {
        lse_rows<scalar_t><<<grid, warps * 32>>>(x.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), rows, n);
    });
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "lse_rows failed to launch");
    return out;
}
"""

LSE_CPP = "torch::Tensor lse(torch::Tensor x2d);"

lse_ext = load_inline(
    name="kbx_honest_logsumexp_warp",
    cpp_sources=LSE_CPP,
    cuda_sources=LSE_CUDA,
    functions=["lse"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def logsumexp(input, dim, keepdim=False):
    nd = input.dim()
    dims = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in dims]
    n = 1
    for d in dims:
        n *= input.shape[d]
    out = lse_ext.lse(input.permute(kept + dims).reshape(-1, n))
    shape = [1 if d in dims else input.shape[d] for d in range(nd)] if keepdim else [input.shape[d] for d in kept]
    return out.view(shape)
