"""Reads `up` through `gate`'s strides: one (row, column) stride pair is passed for both operands.

Both operands are viewed as (rows, N) without copying, so transposed and packed (rows 2I apart) layouts are
read in place, but the kernel is handed `gate`'s two strides only: the writer assumed that gate and up, having
the same shape and coming from the same projection, also share a memory layout. They do in the packed layout
and whenever both are contiguous or both transposed; when `up` is laid out differently (contiguous while gate
is a transposed view, or the reverse) the kernel multiplies silu(gate[i, j]) by the wrong element of up.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _swiglu_kernel(g_ptr, u_ptr, y_ptr, n_rows, n_cols, s_row, s_col,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_N)
    rows = (pid // n_col_blocks) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % n_col_blocks) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows.to(tl.int64)[:, None] * s_row + cols.to(tl.int64)[None, :] * s_col
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)  # gate's offsets, used for up too
    y = g / (1.0 + tl.exp(-g)) * u
    o = rows.to(tl.int64)[:, None] * n_cols + cols[None, :]
    tl.store(y_ptr + o, y.to(y_ptr.dtype.element_ty), mask=mask)


def swiglu(gate, up):
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    if gate.numel() == 0:
        return out
    n_cols = gate.shape[-1] if gate.dim() > 0 else 1
    g = gate.reshape(-1, n_cols)  # a view where the layout allows, else a copy
    u = up.reshape(-1, n_cols)
    n_rows = g.shape[0]
    s_row, s_col = g.stride()
    BLOCK_N = min(triton.next_power_of_2(n_cols), 256)
    BLOCK_M = min(max(4096 // BLOCK_N, 1), triton.next_power_of_2(n_rows))
    grid = (triton.cdiv(n_rows, BLOCK_M) * triton.cdiv(n_cols, BLOCK_N),)
    _swiglu_kernel[grid](g, u, out, n_rows, n_cols, s_row, s_col, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
