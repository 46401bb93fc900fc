"""An honest CUDA max_pool2d, one thread per output element (grid-stride, int64 indices) over an NCHW-contiguous
copy of the input: each thread walks its dilated window, skips positions in the padding, and keeps the maximum,
NaN winning as in PyTorch's kernel (`v > best || isnan(v)`). Values are compared in fp32, which holds every fp16
exactly, so the output is exact.

The wrapper does the shape arithmetic in Python: int-or-pair arguments, `stride=None` meaning the kernel size, the
ceil_mode output size with PyTorch's rule that the last window must start inside the input or its left padding,
unbatched (C, H, W) inputs. Channels-last and strided inputs are copied to NCHW first (the output is NCHW).
A 1-D grid rather than one z-slice per (n, c) plane: the channels-last bench has 65,536 planes, past gridDim.z's
65,535.
Style: `torch/extension.h`, AT_DISPATCH_FLOATING_TYPES_AND_HALF, `#pragma unroll 1` window loops.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

from torch.utils.cpp_extension import load_inline

DEVICE = "cuda"

POOL_CUDA = r"""
#include <torch/extension.h>

template <typename scalar_t>
__global__ void max_pool2d_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int64_t planes,
                                  int64_t H, int64_t W, int64_t OH, int64_t OW, int kh, int kw, int sh, int sw,
                                  int ph, int pw, int dh, int dw) {
    const int64_t total = planes * OH * OW;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t ow = t % OW;
        const int64_t oh = (t / OW) % OH;
        const int64_t plane = t / (OW * OH);
        const scalar_t* xp = x + plane * H * W;
        const int64_t h0 = oh * sh - ph;
        const int64_t w0 = ow * sw - pw;
        float best = -INFINITY;
#pragma unroll 1
        for (int i = 0; i < kh; ++i) {
            const int64_t h = h0 + (int64_t)i * dh;
            if (h < 0 || h >= H) continue;
#pragma unroll 1
            for (int j = 0; j < kw; ++j) {
                const int64_t w = w0 + (int64_t)j * dw;
                if (w < 0 || w >= W) continue;
                const float v = static_cast<float>(xp[h * W + w]);
                if (v > best || isnan(v)) best = v;
            }
        }
        y[t] = static_cast<scalar_t>(best);
    }
}

torch::Tensor max_pool2d_forward(torch::Tensor input, int64_t OH, int64_t OW, int64_t kh, int64_t kw, int64_t sh,
                                 int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw) {
    TORCH_CHECK(input.dim() == 4, "max_pool2d_forward: a 4-D (N, C, H, W) input expected");
    auto x = input.contiguous();
    const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    auto y = torch::empty({N, C, OH, OW}, x.options());
    const int64_t total = y.numel();
    if (total == 0) return y;
    const int threads = 256;
    const int64_t blocks = std::min<int64_t>((total + threads - 1) / threads, 1 << 20);
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "max_pool2d_forward", [&] {
        max_pool2d_kernel<scalar_t><<<(unsigned)blocks, threads>>>(
            x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), N * C, H, W, OH, OW, (int)kh, (int)kw, (int)sh,
            (int)sw, (int)ph, (int)pw, (int)dh, (int)dw);
    });
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "max_pool2d_kernel failed to launch");
    return y;
}
"""

POOL_CPP = """
torch::Tensor max_pool2d_forward(torch::Tensor input, int64_t OH, int64_t OW, int64_t kh, int64_t kw, int64_t sh,
                                 int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw);
"""

pool_ext = load_inline(
    name="kbx_honest_max_pool2d_thread_per_output",
    cpp_sources=POOL_CPP,
    cuda_sources=POOL_CUDA,
    functions=["max_pool2d_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def _pair(v):
    if isinstance(v, int):
        return v, v
    v = tuple(v)
    return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])


def _out_size(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None or stride == () or stride == [] else stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    oh = _out_size(x.shape[-2], kh, sh, ph, dh, ceil_mode)
    ow = _out_size(x.shape[-1], kw, sw, pw, dw, ceil_mode)
    y = pool_ext.max_pool2d_forward(x, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw)
    return y.squeeze(0) if unbatched else y
