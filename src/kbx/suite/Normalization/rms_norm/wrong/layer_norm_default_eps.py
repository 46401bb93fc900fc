"""Treats eps=None as 1e-5 (layer_norm's default) instead of fp32's machine epsilon (~1.19e-7).

Normal-scale rows hide the difference (mean square ~1 dwarfs either eps); for rows with a root mean square of
~0.01 (mean square ~1e-4) eps = 1e-5 shrinks the output by ~5%.
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
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        y = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32) * rstd
        if HAS_WEIGHT:
            y *= tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    x = input.contiguous()
    out = torch.empty_like(x)
    n_cols = math.prod(normalized_shape)
    w = weight.contiguous() if weight is not None else x
    _rms_norm_kernel[(x.numel() // n_cols,)](x, w, out, n_cols, 1e-05 if eps is None else eps,
                                             HAS_WEIGHT=weight is not None,
                                             BLOCK=min(triton.next_power_of_2(n_cols), 4096))
    return out
