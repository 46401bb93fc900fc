"""Flattens the input's leading dims into rows with no reshape, stepping rows by the second-to-last stride.

For an input of shape (..., S, K) it quantizes R = numel / K rows and reads row r at r * stride(-2), which is
right when the leading dims merge into one evenly strided dim: 2-D inputs in any layout and every contiguous 3-D
input. A 3-D input whose batch stride is not S times its row stride (the first S tokens of longer sequences,
`h[:, :S]`) is read from the wrong rows after the first batch entry; `input.reshape(-1, K)` (a copy when the
dims do not merge) would have been right.
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
def _quantize(x, scale):
    q = _round_half_even(tl.math.div_rn(x, scale))
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
    x = input  # leading dims flattened into R rows without a copy: row r sits r row strides from the start
    R = input.numel() // K if K > 0 else 0
    q = torch.empty(input.shape, device=input.device, dtype=torch.int8)
    scale = torch.empty((*input.shape[:-1], 1), device=input.device, dtype=torch.float32)
    if R == 0 or K == 0:
        return q, scale.fill_(1.0)
    # Up to 8192 elements per program: a whole row (several short rows) in registers, else 8192-wide sweeps.
    BLOCK_K = min(8192, triton.next_power_of_2(K))
    BLOCK_R = max(1, min(16, 8192 // BLOCK_K))
    _quantize_rows_kernel[(triton.cdiv(R, BLOCK_R),)](
        x, q, scale, R, K, x.stride(-2), x.stride(-1),
        BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K, ONE_BLOCK=BLOCK_K >= K, num_warps=8,
    )
    return q, scale
