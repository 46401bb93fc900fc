"""Divides the sum of squared deviations by S - 1 (torch.var's default) instead of S.

Instance norm uses the biased variance. For large planes the two are close, but for 3x3 planes the variance
is 12.5% too large and every output ~6% too small.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, S, eps, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
            BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    base = plane.to(tl.int64) * S
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, S, BLOCK):
        i = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + i, mask=i < S, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / S
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, S, BLOCK):
        i = start + tl.arange(0, BLOCK)
        d = tl.where(i < S, tl.load(x_ptr + base + i, mask=i < S, other=0.0).to(tl.float32) - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / (S - 1) + eps)
    for start in range(0, S, BLOCK):
        i = start + tl.arange(0, BLOCK)
        mask = i < S
        y = (tl.load(x_ptr + base + i, mask=mask, other=0.0).to(tl.float32) - mean) * rstd
        c = plane % C
        if HAS_W:
            y = y * tl.load(w_ptr + c).to(tl.float32)
        if HAS_B:
            y = y + tl.load(b_ptr + c).to(tl.float32)
        tl.store(y_ptr + base + i, y.to(y_ptr.dtype.element_ty), mask=mask)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    x = input.contiguous()
    out = torch.empty_like(x)
    N, C = x.shape[0], x.shape[1]
    S = math.prod(x.shape[2:])
    w = weight if weight is not None else x
    b = bias if bias is not None else x
    _kernel[(N * C,)](x, w, b, out, C, S, eps, HAS_W=weight is not None, HAS_B=bias is not None, BLOCK=1024)
    return out
