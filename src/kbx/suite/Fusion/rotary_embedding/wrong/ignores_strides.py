"""Indexes x as a contiguous (B, S, H, D) tensor: token t, head j at t * H * D + j * D.

Right for a freshly allocated projection output, wrong for the views attention code actually passes: a
(B, H, S, D) tensor transposed to (B, S, H, D), or q sliced out of a packed (B, S, 3, H, D) QKV tensor. Only
the head dim is checked for unit stride, so those views are read as if they were contiguous.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _rotary_kernel(x_ptr, cos_ptr, sin_ptr, y_ptr, n_rows, S, H, half, BLOCK_R: tl.constexpr,
                   BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    s = (rows // H) % S
    d = tl.arange(0, BLOCK_D)[None, :]
    mask = (rows[:, None] < n_rows) & (d < half)
    cs = (s * 2 * half)[:, None] + d
    cos1 = tl.load(cos_ptr + cs, mask=mask, other=0.0).to(tl.float32)
    cos2 = tl.load(cos_ptr + cs + half, mask=mask, other=0.0).to(tl.float32)
    sin1 = tl.load(sin_ptr + cs, mask=mask, other=0.0).to(tl.float32)
    sin2 = tl.load(sin_ptr + cs + half, mask=mask, other=0.0).to(tl.float32)
    offs = (rows * 2 * half)[:, None] + d
    x1 = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + offs + half, mask=mask, other=0.0).to(tl.float32)
    y1 = x1 * cos1 - x2 * sin1
    y2 = x2 * cos2 + x1 * sin2
    tl.store(y_ptr + offs, y1.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptr + offs + half, y2.to(y_ptr.dtype.element_ty), mask=mask)


def rotary_embedding(x, cos, sin):
    B, S, H, D = x.shape
    if x.stride(-1) != 1:  # only the last stride is checked
        x = x.contiguous()
    out = torch.empty((B, S, H, D), dtype=x.dtype, device=x.device)
    n_rows = B * S * H
    _rotary_kernel[(triton.cdiv(n_rows, 32),)](x, cos.contiguous(), sin.contiguous(), out, n_rows, S, H, D // 2,
                                               BLOCK_R=32, BLOCK_D=triton.next_power_of_2(D // 2))
    return out
