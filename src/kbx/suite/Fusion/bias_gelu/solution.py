"""Bias add + exact GELU in one Triton kernel: z = input + bias lives only in registers.

Elementwise with a broadcast operand, memory-bound. The input is made contiguous (a transposed input costs one
copy; the bias must follow the logical last dim, so memory order has to be row-major) and viewed as
(rows, N). Each program handles a BLOCK_M x BLOCK_N tile from a flat 1-D grid over (row block, column block):
the tile loads BLOCK_N bias values once and reuses them for its BLOCK_M rows, so there is no per-element
division or modulo to find an element's column, and the bias (N values) stays in L1/L2. z is rounded to the
dtype before GELU, as the unfused add does; GELU is the erf form in fp32 and the result is rounded once.

Traffic: 2 * numel * itemsize bytes. On an H100 (~3 TB/s) the 32768 x 16384 fp32 bench moves 4.3 GB: about
1.4 ms, against ~2.9 ms for the add and GELU as two kernels.
"""

import torch
import triton
import triton.language as tl

SQRT_HALF = tl.constexpr(0.7071067811865476)  # jit code may only read constexpr globals


@triton.jit
def _bias_gelu_kernel(x_ptr, b_ptr, y_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_N)
    rows = (pid // n_col_blocks) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % n_col_blocks) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    mask = (rows[:, None] < n_rows) & col_mask[None, :]
    offs = rows.to(tl.int64)[:, None] * n_cols + cols[None, :]  # 64-bit: the bench has 2^29 elements

    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    # Round z to the dtype (free in fp32): the unfused add hands GELU a rounded z.
    z = (x + b[None, :]).to(y_ptr.dtype.element_ty).to(tl.float32)
    y = 0.5 * z * (1.0 + tl.math.erf(z * SQRT_HALF))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def bias_gelu(input, bias):
    x = input.contiguous()
    b = bias.contiguous()
    out = torch.empty_like(x)
    if x.numel() == 0:
        return out
    n_cols = b.numel()
    assert x.shape[-1] == n_cols, f"bias of {n_cols} does not match input {tuple(x.shape)}"
    n_rows = x.numel() // n_cols
    BLOCK_N = min(triton.next_power_of_2(n_cols), 1024)
    BLOCK_M = min(max(4096 // BLOCK_N, 1), triton.next_power_of_2(n_rows))
    grid = (triton.cdiv(n_rows, BLOCK_M) * triton.cdiv(n_cols, BLOCK_N),)
    _bias_gelu_kernel[grid](x, b, out, n_rows, n_cols, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)
    return out
