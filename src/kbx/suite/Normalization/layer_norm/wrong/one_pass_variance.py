"""Computes the variance in one pass as E[x^2] - E[x]^2 (sum and sum of squares, fp32 accumulation).

Algebraically equal, but when |mean| >> std both terms are ~mean^2 and their difference cancels: with
means of 50 to 150 and standard deviations of 0.5 to 4, fp32 keeps only two to four correct digits of the
variance (and it can even come out negative). The error stays under the bf16 tolerance; fp32 fails.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps,
                       HAS_WEIGHT: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    row_ptr = x_ptr + tl.program_id(0).to(tl.int64) * n_cols
    out_ptr = y_ptr + tl.program_id(0).to(tl.int64) * n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    acc_sq = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x
        acc_sq += x * x
    mean = tl.sum(acc, axis=0) / n_cols
    var = tl.sum(acc_sq, axis=0) / n_cols - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(row_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd
        if HAS_WEIGHT:
            y *= tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        if HAS_BIAS:
            y += tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    x = input.contiguous()
    out = torch.empty_like(x)
    n_cols = math.prod(normalized_shape)
    w = weight if weight is not None else x
    b = bias if bias is not None else x
    _layer_norm_kernel[(x.numel() // n_cols,)](
        x, w, b, out, n_cols, eps, HAS_WEIGHT=weight is not None, HAS_BIAS=bias is not None,
        BLOCK=min(triton.next_power_of_2(n_cols), 4096))
    return out
