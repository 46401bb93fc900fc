"""Adds eps to the root mean square instead of the mean square: x / (sqrt(mean(x^2)) + eps).

Some RMSNorm implementations (and papers) write the denominator this way, but torch's rms_norm puts eps inside
the square root. The two agree when mean(x^2) >> eps and differ clearly when the rows are small: with
eps = 1e-6 and an RMS of ~1e-3, sqrt(ms + eps) and sqrt(ms) + eps differ by ~40%.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _rms_norm_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, HAS_WEIGHT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    inv = 1.0 / (tl.sqrt(tl.sum(acc, axis=0) / n_cols) + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        y = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32) * inv
        if HAS_WEIGHT:
            y *= tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    x = input.contiguous()
    out = torch.empty_like(x)
    n_cols = math.prod(normalized_shape)
    w = weight.contiguous() if weight is not None else x
    eps = torch.finfo(torch.float32).eps if eps is None else eps
    _rms_norm_kernel[(x.numel() // n_cols,)](x, w, out, n_cols, eps, HAS_WEIGHT=weight is not None,
                                             BLOCK=min(triton.next_power_of_2(n_cols), 4096))
    return out
