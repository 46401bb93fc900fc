"""Copies the input only when its last dim is strided, then indexes it as dense NCHW.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard in Triton kernels, and it sends
channels-last, transposed and strided inputs to a copy, so every such workload passes. It misses an input whose
planes are contiguous but whose samples are not C * S apart: the first C channels of a 2C-channel tensor, as
after x.chunk(2, dim=1): from the second sample on it reads the other channels instead.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _plane_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, S, eps, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                  BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    c = plane % C
    base = plane.to(tl.int64) * S  # planes are contiguous in NCHW
    # Pass 1: the mean.
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, S, BLOCK):
        i = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + i, mask=i < S, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / S
    # Pass 2: the biased variance from the deviations (padding lanes masked out).
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, S, BLOCK):
        i = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + i, mask=i < S, other=0.0).to(tl.float32)
        d = tl.where(i < S, x - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / S + eps)
    w = tl.load(w_ptr + c).to(tl.float32) if HAS_W else 1.0
    b = tl.load(b_ptr + c).to(tl.float32) if HAS_B else 0.0
    # Pass 3: normalize and apply the per-channel affine.
    for start in range(0, S, BLOCK):
        i = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + i, mask=i < S, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + base + i, y.to(y_ptr.dtype.element_ty), mask=i < S)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    # Copy only what the flat indexing cannot read: a strided last dim (transposed, strided, channels-last).
    x = input if input.stride(-1) == 1 else input.contiguous()
    N, C = x.shape[0], x.shape[1]
    S = math.prod(x.shape[2:])
    y = torch.empty_like(x)
    w = weight if weight is not None else x  # dummy pointer when absent
    b = bias if bias is not None else x
    BLOCK = min(triton.next_power_of_2(S), 1024)
    _plane_kernel[(N * C,)](x, w, b, y, C, S, eps, HAS_W=weight is not None, HAS_B=bias is not None, BLOCK=BLOCK)
    if input.dim() == 4 and input.is_contiguous(memory_format=torch.channels_last):
        y = y.contiguous(memory_format=torch.channels_last)
    return y
