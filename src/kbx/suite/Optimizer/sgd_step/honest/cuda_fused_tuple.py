"""An honest fused CUDA SGD step (weight decay, momentum with dampening, Nesterov): one elementwise kernel reads
param, grad and momentum_buffer and writes the new parameter and the new buffer, both as fresh tensors (the task
returns them; the inputs stay untouched). Everything is computed in fp32 from the widened inputs and rounded once
per output, in the reference's order: g += wd * p; b = momentum * b + (1 - dampening) * g; g = nesterov ?
g + momentum * b : b; p -= lr * g. With momentum == 0 the buffer comes back unchanged.

Style: `torch/extension.h`, a `std::tuple<torch::Tensor, torch::Tensor>` return (a Python tuple), the
hyper-parameters as `double`s, explicit `float` / `c10::BFloat16` branches, `at::cuda::getCurrentCUDAStream()`
from `<ATen/cuda/CUDAContext.h>`, `C10_CUDA_KERNEL_LAUNCH_CHECK()`; every input made contiguous first.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

SGD_CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <tuple>

template <typename T>
__global__ void sgd_step_kernel(const T* __restrict__ param, const T* __restrict__ grad, const T* __restrict__ buf,
                                T* __restrict__ param_out, T* __restrict__ buf_out, int64_t n, float lr,
                                float momentum, float dampening, float weight_decay, bool nesterov) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float p = static_cast<float>(param[i]);
        float g = static_cast<float>(grad[i]);
        float b = static_cast<float>(buf[i]);
        if (weight_decay != 0.0f) g = g + weight_decay * p;
        if (momentum != 0.0f) {
            b = b * momentum + (1.0f - dampening) * g;
            g = nesterov ? g + momentum * b : b;
        }
        param_out[i] = static_cast<T>(p - lr * g);
        buf_out[i] = static_cast<T>(b);
    }
}

std::tuple<torch::Tensor, torch::Tensor> sgd_step_forward(torch::Tensor param, torch::Tensor grad,
                                                          torch::Tensor momentum_buffer, double lr,
                                                          double momentum, double dampening, double weight_decay,
                                                          bool nesterov) {
    TORCH_CHECK(param.sizes() == grad.sizes() && param.sizes() == momentum_buffer.sizes(),
                "sgd_step_forward: param, grad and momentum_buffer must have one shape");
    TORCH_CHECK(param.scalar_type() == grad.scalar_type() && param.scalar_type() == momentum_buffer.scalar_type(),
                "sgd_step_forward: one dtype expected");
    auto p = param.contiguous();
    auto g = grad.contiguous();
    auto b = momentum_buffer.contiguous();
    auto p_out = torch::empty_like(p);
    auto b_out = torch::empty_like(b);
    const int64_t n = p.numel();
    if (n == 0) return std::make_tuple(p_out, b_out);
    const int threads = 256;
    const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 65535);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (p.scalar_type() == torch::kFloat32) {
        sgd_step_kernel<float><<<(unsigned)blocks, threads, 0, stream>>>(
            p.data_ptr<float>(), g.data_ptr<float>(), b.data_ptr<float>(), p_out.data_ptr<float>(),
            b_out.data_ptr<float>(), n, (float)lr, (float)momentum, (float)dampening, (float)weight_decay, nesterov);
    } else if (p.scalar_type() == torch::kBFloat16) {
        sgd_step_kernel<c10::BFloat16><<<(unsigned)blocks, threads, 0, stream>>>(
            p.data_ptr<c10::BFloat16>(), g.data_ptr<c10::BFloat16>(), b.data_ptr<c10::BFloat16>(),
            p_out.data_ptr<c10::BFloat16>(), b_out.data_ptr<c10::BFloat16>(), n, (float)lr, (float)momentum,
            (float)dampening, (float)weight_decay, nesterov);
    } else {
        TORCH_CHECK(false, "sgd_step_forward: float32 or bfloat16 expected");
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return std::make_tuple(p_out, b_out);
}
"""

SGD_CPP = r"""
#include <tuple>
std::tuple<torch::Tensor, torch::Tensor> sgd_step_forward(torch::Tensor param, torch::Tensor grad,
                                                          torch::Tensor momentum_buffer, double lr,
                                                          double momentum, double dampening, double weight_decay,
                                                          bool nesterov);
"""

sgd_ext = load_inline(
    name="kbx_honest_sgd_step_fused",
    cpp_sources=SGD_CPP,
    cuda_sources=SGD_CUDA,
    functions=["sgd_step_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def sgd_step(param, grad, momentum_buffer, lr=0.01, momentum=0.9, dampening=0.0, weight_decay=0.0,
             nesterov=False):
    return sgd_ext.sgd_step_forward(param, grad, momentum_buffer, float(lr), float(momentum), float(dampening),
                                    float(weight_decay), bool(nesterov))
