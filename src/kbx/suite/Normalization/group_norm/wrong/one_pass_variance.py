"""Computes the variance in one pass as E[x^2] - E[x]^2 with fp32 sums.

Fast (one read for the statistics) and exact in real arithmetic, but when the group mean is large compared
with its spread (|mean| / std ~ 100 here) the two terms agree in their leading ~4 digits and fp32 sums of
~1e4-element groups leave an error of ~1e-3 relative in the variance, well outside the fp32 tolerance.
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
    base = pid.to(tl.int64) * count  # groups are contiguous in NCHW
    s1 = tl.zeros([BLOCK], tl.float32)
    s2 = tl.zeros([BLOCK], tl.float32)
    for start in range(0, count, BLOCK):
        i = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + i, mask=i < count, other=0.0).to(tl.float32)
        s1 += x
        s2 += x * x
    mean = tl.sum(s1, axis=0) / count
    var = tl.maximum(tl.sum(s2, axis=0) / count - mean * mean, 0.0)
    rstd = 1.0 / tl.sqrt(var + eps)
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
    x = input.contiguous()
    out = torch.empty_like(x)
    N, C = x.shape[0], x.shape[1]
    S = math.prod(x.shape[2:])
    w = weight if weight is not None else x
    b = bias if bias is not None else x
    _group_norm_kernel[(N * num_groups,)](x, w, b, out, C, S, num_groups, eps, HAS_W=weight is not None,
                                          HAS_B=bias is not None, BLOCK=1024)
    return out
