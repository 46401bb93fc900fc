"""Per-head RMS norm + rotary embedding of q and k in Triton: one pass over each head vector.

The kernel sees q (or k) as B * S * H head vectors ("rows") of D elements. Each program takes BLOCK_R
consecutive rows; for row r it finds the token (b, s) and head j (r = (b * S + s) * H + j) and loads the row's
two halves as contiguous runs through the tensor's batch, sequence and head strides. Then, in fp32 registers:

    rstd = 1 / sqrt((sum(x1^2) + sum(x2^2)) / D + eps)       the head vector's RMS, one reduction
    n1 = x1 * rstd * w[:h],  n2 = x2 * rstd * w[h:]         the normalised, weighted halves
    out[:h] = n1 * cos[s] - n2 * sin[s],  out[h:] = n2 * cos[s] + n1 * sin[s]

and one rounding on the store. Nothing between the load and the store touches memory: the normalised tensor
and rotate_half(n) exist only in registers. Only the head dim must be contiguous, so q and k sliced out of a
fused QKV projection (token stride (Hq + 2 Hk) * D) or (B, H, S, D) tensors viewed as (B, S, H, D) are read in
place; the outputs are fresh contiguous tensors. A half of D that is not a power of two (D = 96) is padded to
the next one and masked (padding loads 0, which adds nothing to the sum of squares). The weights are loaded
once per program; the (S, D / 2) fp32 cos/sin rows are shared by all heads of a token and come from L1/L2.

One launch per tensor (q, then k), each with a grid of cdiv(rows, BLOCK_R) programs of <= 4096 elements.
Traffic: one read and one write of q and k (+ the tables, a few MB in L2). On an H100 (~3 TB/s) the packed
16 x 4096 x (32 + 8) x 128 bf16 bench moves 1.3 GB, about 0.5 ms, against ~15 fp32 passes for eager PyTorch.
"""

import torch
import triton
import triton.language as tl


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

    # The two halves of every head vector in the block, through the tensor's strides, upcast to fp32.
    x_ptrs = x_ptr + (b * stride_xb + s * stride_xs + head * stride_xh)[:, None] + d[None, :]
    x1 = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptrs + half, mask=mask, other=0.0).to(tl.float32)

    # RMS over the whole head dim (both halves), then the learned per-channel weight.
    mean_sq = (tl.sum(x1 * x1, axis=1) + tl.sum(x2 * x2, axis=1)) / (2 * half)
    rstd = tl.rsqrt(mean_sq + eps)[:, None]
    w1 = tl.load(w_ptr + d, mask=dmask, other=0.0).to(tl.float32)[None, :]
    w2 = tl.load(w_ptr + half + d, mask=dmask, other=0.0).to(tl.float32)[None, :]
    n1 = x1 * rstd * w1
    n2 = x2 * rstd * w2

    # Rotate the pair (i, i + half) by the angle of frequency i at position s (cached: shared by all heads).
    cs = (s * stride_cs)[:, None] + d[None, :]
    cos = tl.load(cos_ptr + cs, mask=mask, other=0.0)
    sin = tl.load(sin_ptr + cs, mask=mask, other=0.0)
    y1 = n1 * cos - n2 * sin
    y2 = n2 * cos + n1 * sin

    # Contiguous (B, S, H, D) output rows, one rounding.
    y_ptrs = y_ptr + (rows * (2 * half))[:, None] + d[None, :]
    tl.store(y_ptrs, y1.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptrs + half, y2.to(y_ptr.dtype.element_ty), mask=mask)


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
