"""An honest CUDA softmax: one block per row, three passes over the row (the row maximum, the sum of
exp(x - max), the normalised outputs), each block-wide reduction a warp `__shfl_xor_sync` butterfly plus one warp
over the per-warp values in shared memory. The wrapper moves the softmax dimension last (`movedim`, then
`.contiguous()`) and moves the result back, so any dim works with one row kernel.

`--use_fast_math` is deliberate: `__expf` of (x - max) <= 0 errs by a few ulp times |x - max|, well inside the
float32-arithmetic allowance, and -inf inputs still give exp = 0 (the last element of every row is finite, so the
maximum is). Arithmetic in fp32 for bf16, one rounding at the store; row offsets int64 (`bench_over_2_31`).
Style: `<ATen/ATen.h>` + `<ATen/cuda/CUDAContext.h>` for `at::cuda::getCurrentCUDAStream()`, `at::Tensor`,
explicit float / BFloat16 instantiations instead of a dispatch macro.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

SOFTMAX_CUDA = r"""
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <cfloat>

template <typename Op>
__device__ float block_allreduce(float v, Op op, float identity, float* scratch) {
    for (int mask = 16; mask > 0; mask >>= 1) v = op(v, __shfl_xor_sync(0xffffffff, v, mask));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    __syncthreads();  // scratch may still be read by the previous reduction
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < warps ? scratch[lane] : identity;
    for (int mask = 16; mask > 0; mask >>= 1) v = op(v, __shfl_xor_sync(0xffffffff, v, mask));
    return v;
}

struct MaxOp { __device__ float operator()(float a, float b) const { return fmaxf(a, b); } };
struct SumOp { __device__ float operator()(float a, float b) const { return a + b; } };

template <typename T>
__global__ void softmax_rows(const T* __restrict__ x, T* __restrict__ y, long long L) {
    __shared__ float scratch[32];
    const long long row = blockIdx.x;
    const T* xr = x + row * L;
    T* yr = y + row * L;

    float m = -INFINITY;
    for (long long j = threadIdx.x; j < L; j += blockDim.x) m = fmaxf(m, static_cast<float>(xr[j]));
    m = block_allreduce(m, MaxOp(), -INFINITY, scratch);

    float s = 0.0f;
    for (long long j = threadIdx.x; j < L; j += blockDim.x) s += __expf(static_cast<float>(xr[j]) - m);
    s = block_allreduce(s, SumOp(), 0.0f, scratch);
    const float inv = 1.0f / s;

    for (long long j = threadIdx.x; j < L; j += blockDim.x) {
        yr[j] = static_cast<T>(__expf(static_cast<float>(xr[j]) - m) * inv);
    }
}

at::Tensor softmax_lastdim(at::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.is_contiguous(), "softmax_lastdim: a contiguous CUDA tensor expected");
    at::Tensor y = at::empty_like(x);
    if (x.numel() == 0) return y;
    const long long L = x.size(-1);
    const long long rows = x.numel() / L;
    const int threads = L >= 4096 ? 1024 : (L >= 512 ? 256 : 128);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (x.scalar_type() == at::kFloat) {
        softmax_rows<float><<<(unsigned)rows, threads, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), L);
    } else if (x.scalar_type() == at::kBFloat16) {
        softmax_rows<at::BFloat16><<<(unsigned)rows, threads, 0, stream>>>(
            x.data_ptr<at::BFloat16>(), y.data_ptr<at::BFloat16>(), L);
    } else if (x.scalar_type() == at::kHalf) {
        softmax_rows<at::Half><<<(unsigned)rows, threads, 0, stream>>>(
            x.data_ptr<at::Half>(), y.data_ptr<at::Half>(), L);
    } else {
        TORCH_CHECK(false, "softmax_lastdim: unsupported dtype");
    }
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "softmax_rows: ", cudaGetErrorString(err));
    return y;
}
"""

softmax_ext = load_inline(
    name="kbx_honest_softmax_three_pass",
    cpp_sources=["at::Tensor softmax_lastdim(at::Tensor x);"],
    cuda_sources=[SOFTMAX_CUDA],
    functions=["softmax_lastdim"],
    extra_cuda_cflags=["-O3", "--use_fast_math"],
    verbose=False,
)


def softmax(input, dim):
    d = dim % input.dim() if input.dim() > 0 else 0
    if input.dim() == 0:
        return softmax_ext.softmax_lastdim(input.reshape(1)).reshape(())
    x = input.movedim(d, -1).contiguous()
    y = softmax_ext.softmax_lastdim(x)
    return y.movedim(-1, d)
