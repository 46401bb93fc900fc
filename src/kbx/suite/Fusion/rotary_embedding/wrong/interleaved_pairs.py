"""Rotates adjacent pairs (x[2i], x[2i+1]) by angle i, the interleaved GPT-J / Meta-original convention.

out[2i] = x[2i] cos_i - x[2i+1] sin_i,  out[2i+1] = x[2i+1] cos_i + x[2i] sin_i, with cos_i = cos[s, i]. A
valid RoPE, but not the rotate-half one the task defines (and that LLaMA checkpoints in the HF layout expect):
the pairs rotated together are (i, i + D/2) there, so every element except the first comes out wrong.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _rotary_kernel(x_ptr, cos_ptr, sin_ptr, y_ptr, S, H, half, BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    s = pid % S
    i = tl.arange(0, BLOCK_D)
    heads = tl.arange(0, BLOCK_H)
    mask = (heads[:, None] < H) & (i[None, :] < half)
    c = tl.load(cos_ptr + s * 2 * half + i, mask=i < half, other=0.0).to(tl.float32)[None, :]
    sn = tl.load(sin_ptr + s * 2 * half + i, mask=i < half, other=0.0).to(tl.float32)[None, :]
    base = pid.to(tl.int64) * H * 2 * half + heads[:, None] * 2 * half + 2 * i[None, :]
    even = tl.load(x_ptr + base, mask=mask, other=0.0).to(tl.float32)
    odd = tl.load(x_ptr + base + 1, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + base, (even * c - odd * sn).to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptr + base + 1, (odd * c + even * sn).to(y_ptr.dtype.element_ty), mask=mask)


def rotary_embedding(x, cos, sin):
    B, S, H, D = x.shape
    x = x.contiguous()
    out = torch.empty_like(x)
    _rotary_kernel[(B * S,)](x, cos.contiguous(), sin.contiguous(), out, S, H, D // 2,
                             BLOCK_H=triton.next_power_of_2(H), BLOCK_D=triton.next_power_of_2(D // 2))
    return out
