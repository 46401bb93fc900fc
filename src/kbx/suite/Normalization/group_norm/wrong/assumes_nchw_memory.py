"""Indexes the input as contiguous NCHW memory without checking its layout (no `.contiguous()`, no strides).

Correct for the common contiguous case, but a channels-last (NHWC) tensor has the same shape with its channels
innermost in memory, so the kernel reads a scrambled tensor: wrong groups, wrong channels, wrong outputs.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _group_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, S, G, eps, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                       BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    group_c = C // G
    count = group_c * S
    base = pid.to(tl.int64) * count
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, count, BLOCK):
        i = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + i, mask=i < count, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / count
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, count, BLOCK):
        i = start + tl.arange(0, BLOCK)
        d = tl.where(i < count, tl.load(x_ptr + base + i, mask=i < count, other=0.0).to(tl.float32) - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / count + eps)
    for start in range(0, count, BLOCK):
        i = start + tl.arange(0, BLOCK)
        mask = i < count
        y = (tl.load(x_ptr + base + i, mask=mask, other=0.0).to(tl.float32) - mean) * rstd
        c = (pid % G) * group_c + i // S
        if HAS_W:
            y = y * tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
        if HAS_B:
            y = y + tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + base + i, y.to(y_ptr.dtype.element_ty), mask=mask)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    N, C = input.shape[0], input.shape[1]
    S = math.prod(input.shape[2:])
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    w = weight if weight is not None else input
    b = bias if bias is not None else input
    _group_norm_kernel[(N * num_groups,)](input, w, b, out, C, S, num_groups, eps,
                                          HAS_W=weight is not None, HAS_B=bias is not None, BLOCK=1024)
    return out
