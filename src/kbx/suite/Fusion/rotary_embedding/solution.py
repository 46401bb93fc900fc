"""Rotary position embedding (rotate-half convention) in one Triton kernel.

The kernel sees x as B * S * H head vectors ("rows") of D elements. Each program takes BLOCK_R consecutive
rows; for row r it finds the token (b, s) and head j (r = (b * S + s) * H + j), loads the row's two halves
as contiguous runs through x's batch, sequence and head strides, gathers the matching halves of cos[s] and
sin[s], and evaluates
    out[:h] = x[:h] * cos[:h] - x[h:] * sin[:h],     out[h:] = x[h:] * cos[h:] + x[:h] * sin[h:]
in fp32 with one rounding: rotate_half(x) and the products exist only in registers. Only the head dim must be
contiguous, so a (B, H, S, D) tensor viewed as (B, S, H, D) or q sliced out of a packed QKV projection is read
in place; the output is a fresh contiguous (B, S, H, D) tensor. A half of D that is not a power of two
(D = 96) is padded to the next one and masked. Rows of the same token share their cos/sin row, which is
re-read from L1/L2 rather than from DRAM.

Traffic: one read and one write of x plus the S * D cos/sin tables (they stay in L2). On an H100 (~3 TB/s)
the 16 x 4096 x 32 x 128 bench moves 2.1 GB in fp32 (about 0.7 ms) and half that in bf16, where the eager
composition (slices, neg, cat, two multiplies, an add) moves roughly five times as much.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rotary_kernel(x_ptr, cos_ptr, sin_ptr, y_ptr, n_rows, S, H, half,
                   stride_xb, stride_xs, stride_xh, stride_cs,
                   BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)  # 64-bit: the bench has 2^28
    token = rows // H                                                        # elements
    head = rows % H
    b = token // S
    s = token % S
    d = tl.arange(0, BLOCK_D)[None, :]
    mask = (rows[:, None] < n_rows) & (d < half)

    # This row's cos / sin halves, gathered by position s (cached: every head of a token reads the same row).
    cs = (s * stride_cs)[:, None] + d
    cos1 = tl.load(cos_ptr + cs, mask=mask, other=0.0).to(tl.float32)
    cos2 = tl.load(cos_ptr + cs + half, mask=mask, other=0.0).to(tl.float32)
    sin1 = tl.load(sin_ptr + cs, mask=mask, other=0.0).to(tl.float32)
    sin2 = tl.load(sin_ptr + cs + half, mask=mask, other=0.0).to(tl.float32)

    # The two halves of x, through its strides; the rotation; one rounding; contiguous output rows.
    x_ptrs = x_ptr + (b * stride_xb + s * stride_xs + head * stride_xh)[:, None] + d
    x1 = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptrs + half, mask=mask, other=0.0).to(tl.float32)
    y1 = x1 * cos1 - x2 * sin1
    y2 = x2 * cos2 + x1 * sin2
    y_ptrs = y_ptr + (rows * (2 * half))[:, None] + d
    tl.store(y_ptrs, y1.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptrs + half, y2.to(y_ptr.dtype.element_ty), mask=mask)


def rotary_embedding(x, cos, sin):
    B, S, H, D = x.shape
    assert D % 2 == 0 and cos.shape == (S, D) and sin.shape == (S, D), "x (B, S, H, D) with cos, sin (S, D)"
    if x.stride(-1) != 1:
        x = x.contiguous()
    cos, sin = cos.contiguous(), sin.contiguous()
    out = torch.empty((B, S, H, D), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    half = D // 2
    n_rows = B * S * H
    BLOCK_D = triton.next_power_of_2(half)
    BLOCK_R = min(max(1, 2048 // BLOCK_D), triton.next_power_of_2(n_rows))  # <= 4096 elements of x per program
    _rotary_kernel[(triton.cdiv(n_rows, BLOCK_R),)](x, cos, sin, out, n_rows, S, H, half,
                                                    x.stride(0), x.stride(1), x.stride(2), cos.stride(0),
                                                    BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D, num_warps=4)
    return out
