"""RMS norm * weight * silu(gate) in one Triton kernel: one read of input and gate, one write.

The inputs are viewed as (rows, N), N the last dim, contiguous after `.contiguous()` (a transposed input or a
strided gate costs one copy, which keeps every load a coalesced run along the row).

* N <= 16384: `ONE_TILE`. A program loads BLOCK_M whole rows of input, takes mean(x^2) in fp32 from registers,
  then loads the gate rows and writes x * rstd * weight * g / (1 + exp(-g)) with one rounding. Traffic: two
  reads and one write per element, plus the weight row once per program (it stays in L2).
* Longer rows: one program per row; sweep 1 streams the input accumulating sum(x^2) lane-wise in fp32, sweep 2
  re-reads the input with the gate and writes. Three reads, one write.

Memory-bound: on an H100 (~3 TB/s) the 65536 x 8192 bf16 bench moves 3.2 GB, about 1.1 ms, against ~40 GB for
the fp32 eager composition (about 13 ms).
"""

import torch
import triton
import triton.language as tl

MAX_ONE_TILE = 16384  # the longest row kept in registers
TILE = 4096  # elements per tile when streaming long rows or packing several short rows in one program


@triton.jit
def _rms_norm_mul_kernel(x_ptr, w_ptr, g_ptr, y_ptr, n_rows, n_cols, eps,
                         ONE_TILE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows[:, None] < n_rows
    row_start = rows.to(tl.int64)[:, None] * n_cols  # 64-bit: the benches have 2^29 and 2^28 elements
    lane_cols = tl.arange(0, BLOCK_N)[None, :]

    if ONE_TILE:
        mask = row_mask & (lane_cols < n_cols)
        x = tl.load(x_ptr + row_start + lane_cols, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.rsqrt(tl.sum(x * x, axis=1) / n_cols + eps)  # padding lanes are 0
        w = tl.load(w_ptr + lane_cols, mask=lane_cols < n_cols, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + row_start + lane_cols, mask=mask, other=0.0).to(tl.float32)
        y = x * rstd[:, None] * w * (g / (1.0 + tl.exp(-g)))
        tl.store(y_ptr + row_start + lane_cols, y.to(y_ptr.dtype.element_ty), mask=mask)
    else:
        # Sweep 1: sum of squares, lane-wise in fp32.
        acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
        for start in range(0, n_cols, BLOCK_N):
            cols = start + lane_cols
            x = tl.load(x_ptr + row_start + cols, mask=row_mask & (cols < n_cols), other=0.0).to(tl.float32)
            acc += x * x
        rstd = tl.rsqrt(tl.sum(acc, axis=1) / n_cols + eps)
        # Sweep 2: normalise, scale, gate, write.
        for start in range(0, n_cols, BLOCK_N):
            cols = start + lane_cols
            mask = row_mask & (cols < n_cols)
            x = tl.load(x_ptr + row_start + cols, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
            g = tl.load(g_ptr + row_start + cols, mask=mask, other=0.0).to(tl.float32)
            y = x * rstd[:, None] * w * (g / (1.0 + tl.exp(-g)))
            tl.store(y_ptr + row_start + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def rms_norm_mul(input, weight, gate, eps=1e-06):
    x = input.contiguous()
    g = gate.contiguous()
    out = torch.empty_like(x)
    n_cols = x.shape[-1]
    if x.numel() == 0:
        return out
    n_rows = x.numel() // n_cols
    width = triton.next_power_of_2(n_cols)
    if width <= MAX_ONE_TILE:
        one_tile, BLOCK_N = True, width
        BLOCK_M = min(max(TILE // BLOCK_N, 1), triton.next_power_of_2(n_rows))
    else:
        one_tile, BLOCK_M, BLOCK_N = False, 1, TILE
    tile = BLOCK_M * BLOCK_N
    num_warps = 4 if tile <= 2048 else 8 if tile <= 4096 else 16
    _rms_norm_mul_kernel[(triton.cdiv(n_rows, BLOCK_M),)](
        x, weight.contiguous(), g, out, n_rows, n_cols, eps,
        ONE_TILE=one_tile, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=num_warps)
    return out
