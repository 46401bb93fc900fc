"""Sigmoid gating in one Triton kernel: input * sigmoid(gate) with one read of each operand and one write.

Elementwise and memory-bound. Both operands are viewed as (rows, N), N the last dim, each with its own row
stride and unit column stride: contiguous tensors and the packed layout (input and gate as the two halves of
one (..., 2D) projection, rows 2D apart) are read in place; any other layout (e.g. transposed) is made
contiguous first. Programs come from a flat 1-D grid over BLOCK_M x BLOCK_N tiles (up to 1024 contiguous
columns, ~4096 elements per tile). sigmoid(g) = 1 / (1 + exp(-g)) in fp32: for g far below 0, exp(-g) = inf
and the quotient is 0, the sigmoid's limit. The product is rounded once.

Traffic: 3 * numel * itemsize bytes. On an H100 (~3 TB/s) the 32768 x 16384 fp16 bench moves 3.2 GB: about
1.1 ms, against ~5.4 GB (about 1.8 ms) for sigmoid and the multiply as two kernels.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sigmoid_gate_kernel(x_ptr, g_ptr, y_ptr, n_rows, n_cols, stride_x, stride_g,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_N)
    rows = (pid // n_col_blocks) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % n_col_blocks) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    rows = rows.to(tl.int64)[:, None]  # 64-bit: row * stride can pass 2^31
    cols = cols[None, :]

    x = tl.load(x_ptr + rows * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows * stride_g + cols, mask=mask, other=0.0).to(tl.float32)
    y = x / (1.0 + tl.exp(-g))
    tl.store(y_ptr + rows * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def _rows(t, n_cols):
    """t as a (rows, n_cols) view with unit column stride, copying only when no such view exists."""
    t2 = t.reshape(-1, n_cols)
    return t2 if t2.stride(1) == 1 or n_cols == 1 else t2.contiguous()


def sigmoid_gate(input, gate):
    assert input.shape == gate.shape, f"input {tuple(input.shape)} and gate {tuple(gate.shape)} differ"
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if input.numel() == 0:
        return out
    n_cols = input.shape[-1] if input.dim() > 0 else 1
    x, g = _rows(input, n_cols), _rows(gate, n_cols)
    n_rows = x.shape[0]
    BLOCK_N = min(triton.next_power_of_2(n_cols), 1024)
    BLOCK_M = min(max(4096 // BLOCK_N, 1), triton.next_power_of_2(n_rows))
    grid = (triton.cdiv(n_rows, BLOCK_M) * triton.cdiv(n_cols, BLOCK_N),)
    _sigmoid_gate_kernel[grid](x, g, out, n_rows, n_cols, x.stride(0), g.stride(0),
                               BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)
    return out
