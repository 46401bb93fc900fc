"""Computes exp(x) / sum(exp(x)) directly, without subtracting the slice maximum first.

Mathematically the same function, but exp overflows to inf for x > ~88.7 (inf / inf = NaN) and underflows to
0 for very negative slices (0 / 0 = NaN). The inputs carry offsets of up to +-1000, so outputs turn NaN.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        s += tl.exp(x)
    total = tl.sum(s, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + row * n_cols + cols, (tl.exp(x) / total).to(y_ptr.dtype.element_ty), mask=mask)


def softmax(input, dim):
    x = input.movedim(dim, -1).contiguous()
    out = torch.empty_like(x)
    n_cols = x.shape[-1]
    BLOCK = min(triton.next_power_of_2(n_cols), 4096)
    _softmax_kernel[(x.numel() // n_cols,)](x, out, n_cols, BLOCK=BLOCK)
    return out.movedim(-1, dim)
