"""Clamps round(x / scale) to [-128, 127] first and adds the zero point afterwards.

The zero point shifts the whole integer grid, so the clamp has to act on the shifted value: with a non-zero
zero point this version saturates at the wrong place (round(y) = -200 with zero point 100 should give -100,
it gives -28) and can push values outside int8 before the cast.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _round_half_even(y):
    """Round fp32 to the nearest integer, ties to the even neighbour (torch.round); exact for |y| < 2^23."""
    a = tl.abs(y)
    f = tl.floor(a)
    frac = a - f  # exact
    f_is_odd = f - 2.0 * tl.floor(0.5 * f)  # 1.0 when f is odd, else 0.0
    r = f + tl.where(frac > 0.5, 1.0, 0.0) + tl.where(frac == 0.5, f_is_odd, 0.0)
    return tl.where(y < 0, -r, r)


@triton.jit
def _quantize_kernel(x_ptr, q_ptr, n, scale, zero_point, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = tl.math.div_rn(x, tl.full((BLOCK,), scale, tl.float32))
    q = tl.minimum(tl.maximum(_round_half_even(y), -128.0), 127.0)
    q = tl.minimum(tl.maximum(q + zero_point, -128.0), 127.0)  # keeps the cast in range, too late
    tl.store(q_ptr + offsets, q.to(tl.int8), mask=mask)


def quantize_per_tensor_int8(input, scale, zero_point):
    x = input.contiguous()
    q = torch.empty(x.shape, device=x.device, dtype=torch.int8)
    n = x.numel()
    BLOCK = 2048
    grid = (triton.cdiv(n, BLOCK),)
    _quantize_kernel[grid](x, q, n, float(scale), float(zero_point), BLOCK=BLOCK, num_warps=8)
    return q
