"""Rounds to the nearest integer (ties to even, correctly) whatever `decimals` says.

Every decimals=0 workload passes; round(x, 2) must keep two decimal places and round(x, -1) must round to tens.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _round_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    r = tl.floor(x)
    d = x - r
    r_is_odd = (r - 2.0 * tl.floor(r * 0.5)) == 1.0
    y = tl.where((d > 0.5) | ((d == 0.5) & r_is_odd), r + 1.0, r)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def round(input, decimals=0):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _round_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
