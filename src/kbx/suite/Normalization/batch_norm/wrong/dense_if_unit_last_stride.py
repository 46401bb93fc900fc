"""Copies the input only when its last dim is strided, then indexes it as dense NCHW.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard in Triton kernels, and it sends
channels-last, transposed and strided inputs to a copy, so every such workload passes. It misses an input whose
planes are contiguous but whose samples are not C * S apart: the first C channels of a 2C-channel tensor, as
after x.chunk(2, dim=1): from the second sample on it reads the other channels instead.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _bn_flat_kernel(x_ptr, y_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, numel, C, HW, eps, HAS_W: tl.constexpr,
                    HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = i < numel
    c = (i // HW) % C  # the channel of each element in NCHW order
    mean = tl.load(mean_ptr + c, mask=mask, other=0.0).to(tl.float32)
    var = tl.load(var_ptr + c, mask=mask, other=1.0).to(tl.float32)
    w = tl.load(w_ptr + c, mask=mask, other=1.0).to(tl.float32) if HAS_W else 1.0
    b = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32) if HAS_B else 0.0
    x = tl.load(x_ptr + i, mask=mask, other=0.0).to(tl.float32)
    y = (x - mean) / tl.sqrt(var + eps) * w + b
    tl.store(y_ptr + i, y.to(y_ptr.dtype.element_ty), mask=mask)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    # Copy only what the flat indexing cannot read: a strided last dim (transposed, strided, channels-last).
    x = input if input.stride(-1) == 1 else input.contiguous()
    C = x.shape[1]
    HW = x[0, 0].numel()  # the elements of one (n, c) plane
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    w = weight if weight is not None else running_mean  # dummy pointer when absent
    b = bias if bias is not None else running_mean
    BLOCK = 1024
    _bn_flat_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, y, running_mean, running_var, w, b, x.numel(), C, HW, eps,
                                                      HAS_W=weight is not None, HAS_B=bias is not None, BLOCK=BLOCK)
    if input.dim() == 4 and input.is_contiguous(memory_format=torch.channels_last):
        y = y.contiguous(memory_format=torch.channels_last)
    return y
