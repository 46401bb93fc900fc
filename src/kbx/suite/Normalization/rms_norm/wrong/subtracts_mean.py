"""Centres each row before normalizing (layer norm without the bias): (x - mean) / sqrt(var + eps) * w.

A mix-up of RMSNorm with LayerNorm. On zero-mean data the two are close, so a test on plain randn can pass;
the task's rows carry a per-row mean comparable to their spread, and constant rows become 0 instead of
c / sqrt(c^2 + eps).
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _norm_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, HAS_WEIGHT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        s += tl.load(x_ptr + row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(s, axis=0) / n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        d = tl.where(mask, tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32) - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        y = (tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32) - mean) * rstd
        if HAS_WEIGHT:
            y *= tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    x = input.contiguous()
    out = torch.empty_like(x)
    n_cols = math.prod(normalized_shape)
    w = weight.contiguous() if weight is not None else x
    eps = torch.finfo(torch.float32).eps if eps is None else eps
    _norm_kernel[(x.numel() // n_cols,)](x, w, out, n_cols, eps, HAS_WEIGHT=weight is not None,
                                         BLOCK=min(triton.next_power_of_2(n_cols), 4096))
    return out
