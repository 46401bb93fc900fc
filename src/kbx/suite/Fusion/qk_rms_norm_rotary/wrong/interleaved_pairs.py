"""Rotates adjacent pairs (2i, 2i + 1) by frequency i: the interleaved GPT-J / Meta-original RoPE layout.

The norm is right, but the rotation pairs element 2i with 2i + 1, out[2i] = n[2i] cos_i - n[2i+1] sin_i,
out[2i+1] = n[2i+1] cos_i + n[2i] sin_i. That is a valid RoPE, but not the rotate-half (NeoX / HF LLaMA,
Qwen) layout the task defines, which turns the pair (i, i + D / 2): every element but the first comes out
wrong.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _qk_norm_rotary_kernel(x_ptr, w_ptr, cos_ptr, sin_ptr, y_ptr, n_rows, S, H, half, eps,
                           stride_xb, stride_xs, stride_xh, stride_cs,
                           BLOCK_R: tl.constexpr, BLOCK_H: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)  # 64-bit: strided views of
    token = rows // H                                                        # large QKV tensors
    head = rows % H
    b = token // S
    s = token % S
    d = tl.arange(0, BLOCK_H)
    dmask = d < half
    mask = (rows[:, None] < n_rows) & dmask[None, :]

    # The even and odd elements of every head vector in the block (the rotation pairs), upcast to fp32.
    x_ptrs = x_ptr + (b * stride_xb + s * stride_xs + head * stride_xh)[:, None] + 2 * d[None, :]
    x1 = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptrs + 1, mask=mask, other=0.0).to(tl.float32)

    # RMS over the whole head dim (both halves), then the learned per-channel weight.
    mean_sq = (tl.sum(x1 * x1, axis=1) + tl.sum(x2 * x2, axis=1)) / (2 * half)
    rstd = tl.rsqrt(mean_sq + eps)[:, None]
    w1 = tl.load(w_ptr + 2 * d, mask=dmask, other=0.0).to(tl.float32)[None, :]
    w2 = tl.load(w_ptr + 2 * d + 1, mask=dmask, other=0.0).to(tl.float32)[None, :]
    n1 = x1 * rstd * w1
    n2 = x2 * rstd * w2

    # Rotate the pair (2i, 2i + 1) by the angle of frequency i at position s.
    cs = (s * stride_cs)[:, None] + d[None, :]
    cos = tl.load(cos_ptr + cs, mask=mask, other=0.0)
    sin = tl.load(sin_ptr + cs, mask=mask, other=0.0)
    y1 = n1 * cos - n2 * sin
    y2 = n2 * cos + n1 * sin

    # Contiguous (B, S, H, D) output rows, one rounding.
    y_ptrs = y_ptr + (rows * (2 * half))[:, None] + 2 * d[None, :]
    tl.store(y_ptrs, y1.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptrs + 1, y2.to(y_ptr.dtype.element_ty), mask=mask)


def _norm_rotary(x, weight, cos, sin, eps):
    B, S, H, D = x.shape
    if x.stride(-1) != 1:  # the kernel needs unit stride only along the head dim
        x = x.contiguous()
    out = torch.empty((B, S, H, D), dtype=x.dtype, device=x.device)
    n_rows = B * S * H
    if n_rows == 0:
        return out
    half = D // 2
    BLOCK_H = triton.next_power_of_2(half)
    BLOCK_R = min(max(1, 2048 // BLOCK_H), triton.next_power_of_2(n_rows))  # <= 4096 elements per program
    _qk_norm_rotary_kernel[(triton.cdiv(n_rows, BLOCK_R),)](
        x, weight, cos, sin, out, n_rows, S, H, half, eps,
        x.stride(0), x.stride(1), x.stride(2), cos.stride(0),
        BLOCK_R=BLOCK_R, BLOCK_H=BLOCK_H, num_warps=4,
    )
    return out


def qk_rms_norm_rotary(q, k, q_weight, k_weight, cos, sin, eps=1e-06):
    S, D = q.shape[1], q.shape[-1]
    assert D % 2 == 0 and k.shape[1] == S and k.shape[-1] == D, "q (B, S, Hq, D), k (B, S, Hk, D), D even"
    assert cos.shape == (S, D // 2) and sin.shape == (S, D // 2), "cos, sin: (S, D / 2)"
    cos = cos.to(torch.float32).contiguous()
    sin = sin.to(torch.float32).contiguous()
    return (_norm_rotary(q, q_weight.contiguous(), cos, sin, eps),
            _norm_rotary(k, k_weight.contiguous(), cos, sin, eps))
