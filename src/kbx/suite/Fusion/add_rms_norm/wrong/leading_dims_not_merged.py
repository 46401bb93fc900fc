"""Reads last-dim-contiguous input and residual in place as rows stepped by their second-to-last stride, with
no reshape.

Right when the leading dims merge into one evenly strided dim (every contiguous tensor; other layouts are made
contiguous). A 3-D input or residual holding the first S positions of longer sequences (`h[:, :S]`, batch stride
not S rows) is read from the wrong rows after the first batch entry; `.contiguous()` or `reshape(-1, N)` (a copy
then) would have been right.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

MAX_ONE_TILE = 16384  # the longest row kept in registers (64 KiB of fp32 per operand per program, 16 warps)
TILE = 4096  # elements per tile when streaming long rows or packing several short rows in one program


@triton.jit
def _add_rms_norm_kernel(x_ptr, r_ptr, w_ptr, out_ptr, h_ptr, n_rows, n_cols, stride_x, stride_r, eps,
                         ONE_TILE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows[:, None] < n_rows
    row_start = rows.to(tl.int64)[:, None] * n_cols  # 64-bit: rows * n_cols can pass 2^31
    x_start = rows.to(tl.int64)[:, None] * stride_x
    r_start = rows.to(tl.int64)[:, None] * stride_r
    lane_cols = tl.arange(0, BLOCK_N)[None, :]
    dtype = h_ptr.dtype.element_ty

    if ONE_TILE:
        mask = row_mask & (lane_cols < n_cols)
        x = tl.load(x_ptr + x_start + lane_cols, mask=mask, other=0.0).to(tl.float32)
        r = tl.load(r_ptr + r_start + lane_cols, mask=mask, other=0.0).to(tl.float32)
        # Round h to the dtype before taking statistics: the norm must see the residual it returns.
        h = (x + r).to(dtype)
        tl.store(h_ptr + row_start + lane_cols, h, mask=mask)
        hf = h.to(tl.float32)  # padding lanes are 0 and add nothing to the sum of squares
        rstd = tl.rsqrt(tl.sum(hf * hf, axis=1) / n_cols + eps)
        w = tl.load(w_ptr + lane_cols, mask=lane_cols < n_cols, other=0.0).to(tl.float32)
        y = hf * rstd[:, None] * w
        tl.store(out_ptr + row_start + lane_cols, y.to(dtype), mask=mask)
    else:
        # Sweep 1: store h, accumulate sum(h^2) lane-wise in fp32.
        acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
        for start in range(0, n_cols, BLOCK_N):
            cols = start + lane_cols
            mask = row_mask & (cols < n_cols)
            x = tl.load(x_ptr + x_start + cols, mask=mask, other=0.0).to(tl.float32)
            r = tl.load(r_ptr + r_start + cols, mask=mask, other=0.0).to(tl.float32)
            h = (x + r).to(dtype)
            tl.store(h_ptr + row_start + cols, h, mask=mask)
            hf = h.to(tl.float32)
            acc += hf * hf
        rstd = tl.rsqrt(tl.sum(acc, axis=1) / n_cols + eps)
        # Sweep 2: recompute h (bit-identical) and write the scaled output.
        for start in range(0, n_cols, BLOCK_N):
            cols = start + lane_cols
            mask = row_mask & (cols < n_cols)
            x = tl.load(x_ptr + x_start + cols, mask=mask, other=0.0).to(tl.float32)
            r = tl.load(r_ptr + r_start + cols, mask=mask, other=0.0).to(tl.float32)
            hf = (x + r).to(dtype).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
            y = hf * rstd[:, None] * w
            tl.store(out_ptr + row_start + cols, y.to(dtype), mask=mask)


def add_rms_norm(input, residual, weight, eps=1e-06):
    x = input if input.dim() >= 2 and input.stride(-1) == 1 else input.contiguous()
    r = residual if residual.dim() >= 2 and residual.stride(-1) == 1 else residual.contiguous()
    w = weight.contiguous()
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    h = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_cols = x.shape[-1]
    if x.numel() == 0:
        return out, h
    n_rows = x.numel() // n_cols

    width = triton.next_power_of_2(n_cols)
    if width <= MAX_ONE_TILE:
        # Whole rows in registers; short rows share a program so that each tile has ~TILE elements.
        one_tile, BLOCK_N = True, width
        BLOCK_M = min(max(TILE // BLOCK_N, 1), triton.next_power_of_2(n_rows))
    else:
        one_tile, BLOCK_M, BLOCK_N = False, 1, TILE
    tile = BLOCK_M * BLOCK_N
    num_warps = 4 if tile <= 2048 else 8 if tile <= 4096 else 16
    grid = (triton.cdiv(n_rows, BLOCK_M),)
    # Rows stepped by stride(-2): the leading dims assumed to merge.
    _add_rms_norm_kernel[grid](x, r, w, out, h, n_rows, n_cols, x.stride(-2), r.stride(-2), eps,
                               ONE_TILE=one_tile, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=num_warps)
    return out, h
