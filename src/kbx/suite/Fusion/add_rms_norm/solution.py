"""Residual add + RMS norm in one Triton kernel: h is written once and never read back.

The inputs are viewed as (rows, N) with N the last dim; rows are contiguous after `.contiguous()` (a
transposed or strided input costs one copy, which keeps every load a coalesced run along the row).

* N <= 16384 (every usual hidden size): `ONE_TILE`. A program loads BLOCK_M whole rows of input and residual,
  forms h = input + residual in fp32 and rounds it to the dtype (the exact tensor PyTorch's add returns),
  stores it as the new residual, then, still from registers, takes mean(h^2) in fp32 and writes
  h * rsqrt(mean + eps) * weight with one rounding. Traffic: two reads and two writes per element, plus the
  weight row once per program (it stays in L2).
* Longer rows: a program owns one row and streams it in BLOCK_N chunks. Sweep 1 forms and stores h and
  accumulates the sum of squares in an fp32 vector; sweep 2 recomputes h from input and residual (the same
  rounding, so the same values) and writes the output: four reads, two writes.

The kernel is memory-bound. On an H100 (~3 TB/s) the 32768 x 8192 bf16 bench moves 2 GiB: about 0.75 ms,
against ~3 ms for eager PyTorch's add + fp32 norm composition.
"""

import torch
import triton
import triton.language as tl

MAX_ONE_TILE = 16384  # the longest row kept in registers (64 KiB of fp32 per operand per program, 16 warps)
TILE = 4096  # elements per tile when streaming long rows or packing several short rows in one program


@triton.jit
def _add_rms_norm_kernel(x_ptr, r_ptr, w_ptr, out_ptr, h_ptr, n_rows, n_cols, eps,
                         ONE_TILE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows[:, None] < n_rows
    row_start = rows.to(tl.int64)[:, None] * n_cols  # 64-bit: rows * n_cols can pass 2^31
    lane_cols = tl.arange(0, BLOCK_N)[None, :]
    dtype = h_ptr.dtype.element_ty

    if ONE_TILE:
        mask = row_mask & (lane_cols < n_cols)
        x = tl.load(x_ptr + row_start + lane_cols, mask=mask, other=0.0).to(tl.float32)
        r = tl.load(r_ptr + row_start + lane_cols, mask=mask, other=0.0).to(tl.float32)
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
            x = tl.load(x_ptr + row_start + cols, mask=mask, other=0.0).to(tl.float32)
            r = tl.load(r_ptr + row_start + cols, mask=mask, other=0.0).to(tl.float32)
            h = (x + r).to(dtype)
            tl.store(h_ptr + row_start + cols, h, mask=mask)
            hf = h.to(tl.float32)
            acc += hf * hf
        rstd = tl.rsqrt(tl.sum(acc, axis=1) / n_cols + eps)
        # Sweep 2: recompute h (bit-identical) and write the scaled output.
        for start in range(0, n_cols, BLOCK_N):
            cols = start + lane_cols
            mask = row_mask & (cols < n_cols)
            x = tl.load(x_ptr + row_start + cols, mask=mask, other=0.0).to(tl.float32)
            r = tl.load(r_ptr + row_start + cols, mask=mask, other=0.0).to(tl.float32)
            hf = (x + r).to(dtype).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
            y = hf * rstd[:, None] * w
            tl.store(out_ptr + row_start + cols, y.to(dtype), mask=mask)


def add_rms_norm(input, residual, weight, eps=1e-06):
    x = input.contiguous()
    r = residual.contiguous()
    w = weight.contiguous()
    out = torch.empty_like(x)
    h = torch.empty_like(x)
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
    _add_rms_norm_kernel[grid](x, r, w, out, h, n_rows, n_cols, eps,
                               ONE_TILE=one_tile, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=num_warps)
    return out, h
