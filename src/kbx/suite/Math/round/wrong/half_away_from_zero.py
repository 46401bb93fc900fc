"""Rounds ties away from zero, as C's round() and school arithmetic do: sign(x) * floor(|x| + 0.5).

Every non-tie is right (and decimals are handled), but PyTorch rounds ties to the even neighbour: 2.5 must give 2,
-0.5 must give -0, and 0.5 must give 0; this kernel returns 3, -1 and 1.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _round_kernel(x_ptr, y_ptr, n, scale, DECIMALS_SIGN: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    t = x * scale if DECIMALS_SIGN > 0 else (x / scale if DECIMALS_SIGN < 0 else x)
    r = tl.floor(tl.abs(t) + 0.5)
    r = tl.where(t < 0, -r, r)
    y = r / scale if DECIMALS_SIGN > 0 else (r * scale if DECIMALS_SIGN < 0 else r)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def round(input, decimals=0):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    sign = (decimals > 0) - (decimals < 0)
    _round_kernel[(triton.cdiv(n, 1024),)](x, out, n, float(10 ** abs(decimals)), DECIMALS_SIGN=sign, BLOCK=1024)
    return out
