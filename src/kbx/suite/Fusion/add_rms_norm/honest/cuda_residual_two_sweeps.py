"""An honest fused CUDA residual add + RMSNorm returning (normed, h): one block per row. The first sweep forms
h = input + residual in fp32, rounds it to the dtype (h is an output, and the definition normalises the rounded
value), stores it and accumulates the fp32 sum of squares of the rounded h; after a warp-shuffle + shared-memory
block reduction and rstd = rsqrtf(sum / N + eps), the second sweep re-reads exactly the h elements the same thread
stored (no barrier needed for them) and writes h * rstd * weight, rounded once.

Style: `torch/extension.h` with the kernels templated on CUDA's own `__half` / `__nv_bfloat16` (the c10 types
reinterpreted), overloaded load/store helpers around `__half2float` / `__bfloat162float` / `__float2half_rn` /
`__float2bfloat16_rn`, a `std::vector<torch::Tensor>` result the wrapper turns into a tuple, inputs made
contiguous (transposed input, strided residual).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

SOURCE = r"""
#include <torch/extension.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <vector>

__device__ __forceinline__ float to_f(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T>
__global__ void add_rms_norm_kernel(const T* __restrict__ x, const T* __restrict__ r, const T* __restrict__ w,
                                    T* __restrict__ out, T* __restrict__ h, int64_t N, float eps) {
    __shared__ float partial[32];
    __shared__ float rstd_s;
    const int64_t base = (int64_t)blockIdx.x * N;
    float ss = 0.0f;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
        const T hv = from_f<T>(to_f(x[base + j]) + to_f(r[base + j]));
        h[base + j] = hv;
        const float hf = to_f(hv);
        ss += hf * hf;
    }
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_down_sync(0xffffffff, ss, o);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = ss;
    __syncthreads();
    if (threadIdx.x < 32) {
        float v = threadIdx.x < (blockDim.x >> 5) ? partial[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
        if (threadIdx.x == 0) rstd_s = rsqrtf(v / (float)N + eps);
    }
    __syncthreads();
    const float rstd = rstd_s;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
        out[base + j] = from_f<T>(to_f(h[base + j]) * rstd * to_f(w[j]));
    }
}

std::vector<torch::Tensor> add_rms_norm_forward(torch::Tensor input, torch::Tensor residual, torch::Tensor weight,
                                                double eps) {
    TORCH_CHECK(input.sizes() == residual.sizes(), "add_rms_norm_forward: input and residual shapes differ");
    TORCH_CHECK(input.scalar_type() == residual.scalar_type() && input.scalar_type() == weight.scalar_type(),
                "add_rms_norm_forward: one dtype expected");
    auto x = input.contiguous();
    auto r = residual.contiguous();
    auto w = weight.contiguous();
    const int64_t N = x.size(-1);
    TORCH_CHECK(w.numel() == N, "add_rms_norm_forward: weight must match the last dimension");
    auto out = torch::empty_like(x);
    auto h = torch::empty_like(x);
    if (x.numel() == 0) return {out, h};
    const int64_t rows = x.numel() / N;
    const int threads = N >= 4096 ? 1024 : 256;
    if (x.scalar_type() == torch::kFloat16) {
        add_rms_norm_kernel<__half><<<(unsigned)rows, threads>>>(
            reinterpret_cast<const __half*>(x.data_ptr<at::Half>()),
            reinterpret_cast<const __half*>(r.data_ptr<at::Half>()),
            reinterpret_cast<const __half*>(w.data_ptr<at::Half>()),
            reinterpret_cast<__half*>(out.data_ptr<at::Half>()), reinterpret_cast<__half*>(h.data_ptr<at::Half>()),
            N, (float)eps);
    } else if (x.scalar_type() == torch::kBFloat16) {
        add_rms_norm_kernel<__nv_bfloat16><<<(unsigned)rows, threads>>>(
            reinterpret_cast<const __nv_bfloat16*>(x.data_ptr<at::BFloat16>()),
            reinterpret_cast<const __nv_bfloat16*>(r.data_ptr<at::BFloat16>()),
            reinterpret_cast<const __nv_bfloat16*>(w.data_ptr<at::BFloat16>()),
            reinterpret_cast<__nv_bfloat16*>(out.data_ptr<at::BFloat16>()),
            reinterpret_cast<__nv_bfloat16*>(h.data_ptr<at::BFloat16>()), N, (float)eps);
    } else {
        TORCH_CHECK(false, "add_rms_norm_forward: float16 or bfloat16 expected");
    }
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "add_rms_norm_kernel: ", cudaGetErrorString(err));
    return {out, h};
}
"""

DECLARATION = ("std::vector<torch::Tensor> add_rms_norm_forward(torch::Tensor input, torch::Tensor residual, "
               "torch::Tensor weight, double eps);")

add_rms_norm_ext = load_inline(
    name="kbx_honest_add_rms_norm_two_sweeps",
    cpp_sources=DECLARATION,
    cuda_sources=SOURCE,
    functions=["add_rms_norm_forward"],
    extra_cuda_cflags=["-O3", "-std=c++17"],
    verbose=False,
)


def add_rms_norm(input, residual, weight, eps=1e-06):
    normed, h = add_rms_norm_ext.add_rms_norm_forward(input, residual, weight, float(eps))
    return normed, h
