"""Rounds x / scale with floor(|y| + 0.5), half away from zero (C's round()), instead of half to even.

It agrees with the definition except on exact ties y = n + 1/2. The tie rows of the inputs (scale exactly
2^e, about half their elements at (n + 1/2) * 2^e) are full of them, and half of those come out one step
off.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _round_half_away(y):
    """Round to nearest, ties away from zero."""
    r = tl.floor(tl.abs(y) + 0.5)
    return tl.where(y < 0, -r, r)


@triton.jit
def _quantize(x, scale):
    q = _round_half_away(tl.math.div_rn(x, scale))
    return tl.minimum(tl.maximum(q, -127.0), 127.0).to(tl.int8)


@triton.jit
def _row_scale(amax):
    scale = tl.math.div_rn(amax, tl.full(amax.shape, 127.0, tl.float32))
    return tl.where(amax == 0.0, 1.0, scale)  # a row of zeros quantizes to zeros with scale 1


@triton.jit
def _quantize_rows_kernel(
    x_ptr, q_ptr, scale_ptr, R, K, stride_xr, stride_xk,
    BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, ONE_BLOCK: tl.constexpr,
):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = rows < R
    x_rows = x_ptr + rows[:, None] * stride_xr
    q_rows = q_ptr + rows[:, None] * K
    offs = tl.arange(0, BLOCK_K)
    if ONE_BLOCK:
        # Whole rows in registers: one read from memory.
        mask = row_ok[:, None] & (offs[None, :] < K)
        x = tl.load(x_rows + offs[None, :] * stride_xk, mask=mask, other=0.0).to(tl.float32)
        scale = _row_scale(tl.max(tl.abs(x), axis=1))
        tl.store(q_rows + offs[None, :], _quantize(x, scale[:, None]), mask=mask)
    else:
        amax = tl.zeros((BLOCK_R, BLOCK_K), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            cols = k0 + offs
            mask = row_ok[:, None] & (cols[None, :] < K)
            x = tl.load(x_rows + cols[None, :] * stride_xk, mask=mask, other=0.0).to(tl.float32)
            amax = tl.maximum(amax, tl.abs(x))
        scale = _row_scale(tl.max(amax, axis=1))
        for k0 in range(0, K, BLOCK_K):
            cols = k0 + offs
            mask = row_ok[:, None] & (cols[None, :] < K)
            x = tl.load(x_rows + cols[None, :] * stride_xk, mask=mask, other=0.0).to(tl.float32)
            tl.store(q_rows + cols[None, :], _quantize(x, scale[:, None]), mask=mask)
    tl.store(scale_ptr + rows, scale, mask=row_ok)


def quantize_per_token_int8(input):
    K = input.shape[-1]
    x = input if input.dim() == 2 else input.reshape(-1, K)
    R = x.shape[0]
    q = torch.empty(input.shape, device=input.device, dtype=torch.int8)
    scale = torch.empty((*input.shape[:-1], 1), device=input.device, dtype=torch.float32)
    if R == 0 or K == 0:
        return q, scale.fill_(1.0)
    # Up to 8192 elements per program: a whole row (several short rows) in registers, else 8192-wide sweeps.
    BLOCK_K = min(8192, triton.next_power_of_2(K))
    BLOCK_R = max(1, min(16, 8192 // BLOCK_K))
    _quantize_rows_kernel[(triton.cdiv(R, BLOCK_R),)](
        x, q, scale, R, K, x.stride(0), x.stride(1),
        BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K, ONE_BLOCK=BLOCK_K >= K, num_warps=8,
    )
    return q, scale
