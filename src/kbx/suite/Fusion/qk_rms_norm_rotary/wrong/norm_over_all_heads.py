"""Normalises each token's q (and k) over all its heads at once, like OLMo-2's q_norm over the full projection.

The RMS is taken over the H * D values of a token, not over each head's D values: where the heads have
different scales (every head vector here has its own, 2^-2 to 2^2) small heads come out too small and large
ones too large. The weight is applied per channel of the head dim, and the rotation is right.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, w_ptr, cos_ptr, sin_ptr, y_ptr, S, H, half, eps,
            stride_xb, stride_xs, stride_xh, stride_cs,
            BLOCK_HEADS: tl.constexpr, BLOCK_H: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)  # one program per token: all its heads
    b = token // S
    s = token % S
    heads = tl.arange(0, BLOCK_HEADS)
    d = tl.arange(0, BLOCK_H)
    mask = (heads[:, None] < H) & (d[None, :] < half)
    x_ptrs = x_ptr + b * stride_xb + s * stride_xs + heads[:, None] * stride_xh + d[None, :]
    x1 = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptrs + half, mask=mask, other=0.0).to(tl.float32)
    mean_sq = (tl.sum(tl.sum(x1 * x1, axis=1), axis=0) + tl.sum(tl.sum(x2 * x2, axis=1), axis=0)) / (2 * half * H)
    rstd = tl.rsqrt(mean_sq + eps)
    w1 = tl.load(w_ptr + d, mask=d < half, other=0.0).to(tl.float32)[None, :]
    w2 = tl.load(w_ptr + half + d, mask=d < half, other=0.0).to(tl.float32)[None, :]
    n1 = x1 * rstd * w1
    n2 = x2 * rstd * w2
    cos = tl.load(cos_ptr + s * stride_cs + d, mask=d < half, other=0.0)[None, :]
    sin = tl.load(sin_ptr + s * stride_cs + d, mask=d < half, other=0.0)[None, :]
    y_ptrs = y_ptr + token * H * 2 * half + heads[:, None] * (2 * half) + d[None, :]
    tl.store(y_ptrs, (n1 * cos - n2 * sin).to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptrs + half, (n2 * cos + n1 * sin).to(y_ptr.dtype.element_ty), mask=mask)


def _norm_rotary(x, weight, cos, sin, eps):
    B, S, H, D = x.shape
    if x.stride(-1) != 1:
        x = x.contiguous()
    out = torch.empty((B, S, H, D), dtype=x.dtype, device=x.device)
    half = D // 2
    _kernel[(B * S,)](x, weight, cos, sin, out, S, H, half, eps,
                      x.stride(0), x.stride(1), x.stride(2), cos.stride(0),
                      BLOCK_HEADS=triton.next_power_of_2(H), BLOCK_H=triton.next_power_of_2(half))
    return out


def qk_rms_norm_rotary(q, k, q_weight, k_weight, cos, sin, eps=1e-06):
    cos = cos.to(torch.float32).contiguous()
    sin = sin.to(torch.float32).contiguous()
    return (_norm_rotary(q, q_weight.contiguous(), cos, sin, eps),
            _norm_rotary(k, k_weight.contiguous(), cos, sin, eps))
