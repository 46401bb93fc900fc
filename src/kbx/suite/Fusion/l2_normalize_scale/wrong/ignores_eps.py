"""Clamps the norm with the default eps (1e-12) whatever eps it is given.

Right for every call that leaves eps at its default; a slice whose norm lies below a larger eps is divided by its
norm instead of by eps.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

TILE = 4096  # elements per [BLOCK_R, BLOCK_I] tile


@triton.jit
def _l2_normalize_scale_kernel(x_ptr, s_ptr, y_ptr, R, inner, eps,
                               BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(inner, BLOCK_I)
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = (pid % n_col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols[None, :] < inner
    base = outer * R * inner + cols[None, :]  # 64-bit: the benches have 2^29 and 2^28 elements
    lane_r = tl.arange(0, BLOCK_R)[:, None]

    # Sweep 1: sum of squares along R, per column, in fp32.
    acc = tl.zeros([BLOCK_R, BLOCK_I], tl.float32)
    for start in range(0, R, BLOCK_R):
        r = start + lane_r
        mask = (r < R) & col_mask
        x = tl.load(x_ptr + base + r.to(tl.int64) * inner, mask=mask, other=0.0).to(tl.float32)
        acc += x * x
    inv = 1.0 / tl.maximum(tl.sqrt(tl.sum(acc, axis=0)), eps)  # F.normalize's clamp: x / max(norm, eps)

    # Sweep 2: scale by the inverse norm and the per-feature gain, write.
    for start in range(0, R, BLOCK_R):
        r = start + lane_r
        mask = (r < R) & col_mask
        offs = base + r.to(tl.int64) * inner
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(s_ptr + r, mask=r < R, other=0.0).to(tl.float32)
        y = x * inv[None, :] * g
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def l2_normalize_scale(input, scale, dim=-1, eps=1e-12):
    x = input.contiguous()
    out = torch.empty_like(x)
    if x.numel() == 0:
        return out
    d = dim % x.dim()
    R = x.shape[d]
    outer = math.prod(x.shape[:d])
    inner = math.prod(x.shape[d + 1:])
    BLOCK_I = min(triton.next_power_of_2(inner), 32)  # 32 adjacent columns = 128 B of fp32 per tile row
    BLOCK_R = min(triton.next_power_of_2(R), TILE // BLOCK_I)
    num_warps = 8 if BLOCK_R * BLOCK_I >= 4096 else 4
    grid = (outer * triton.cdiv(inner, BLOCK_I),)
    _l2_normalize_scale_kernel[grid](x, scale.contiguous(), out, R, inner, 1e-12,  # BUG: eps ignored
                                     BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, num_warps=num_warps)
    return out
