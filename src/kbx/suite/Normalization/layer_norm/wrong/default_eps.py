"""Ignores the eps argument and hard-codes PyTorch's default 1e-5.

Plausible: eps is "always 1e-5" in most models; only a workload passing another eps to rows whose variance is
not far above it shows the difference.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _ln_row_kernel(x_ptr, y_ptr, w_ptr, b_ptr, N, s_row, s_col, eps, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * s_row
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_row + cols.to(tl.int64) * s_col, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols.to(tl.int64) * s_col, mask=cols < N, other=0.0).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + 1e-5)  # eps argument ignored
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_row + cols.to(tl.int64) * s_col, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd
        if HAS_W:
            y = y * tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        if HAS_B:
            y = y + tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * N + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    N = math.prod(normalized_shape)
    x = input.reshape(-1, N)  # a view when the leading dims merge, else a copy
    rows = x.shape[0]
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    w = weight.reshape(-1) if weight is not None else x  # dummy pointer when absent
    b = bias.reshape(-1) if bias is not None else x
    BLOCK = min(triton.next_power_of_2(N), 2048)
    _ln_row_kernel[(rows,)](x, y, w, b, N, x.stride(0), x.stride(1), eps, HAS_W=weight is not None,
                            HAS_B=bias is not None, BLOCK=BLOCK)
    return y
