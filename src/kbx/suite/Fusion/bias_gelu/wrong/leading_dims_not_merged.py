"""Reads a last-dim-contiguous input in place as rows stepped by its second-to-last stride, with no reshape.

Right when the leading dims merge into one evenly strided dim (every contiguous input; other layouts are made
contiguous). A 3-D input holding the first S positions of longer sequences (`h[:, :S]`, batch stride not S rows)
is read from the wrong rows after the first batch entry; `input.reshape(-1, N)` (a copy then) or
`.contiguous()` would have been right.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

SQRT_HALF = tl.constexpr(0.7071067811865476)  # jit code may only read constexpr globals


@triton.jit
def _bias_gelu_kernel(x_ptr, b_ptr, y_ptr, n_rows, n_cols, stride_x, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_N)
    rows = (pid // n_col_blocks) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % n_col_blocks) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    mask = (rows[:, None] < n_rows) & col_mask[None, :]
    offs = rows.to(tl.int64)[:, None] * n_cols + cols[None, :]  # 64-bit: the bench has 2^29 elements

    x = tl.load(x_ptr + rows.to(tl.int64)[:, None] * stride_x + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    # Round z to the dtype (free in fp32): the unfused add hands GELU a rounded z.
    z = (x + b[None, :]).to(y_ptr.dtype.element_ty).to(tl.float32)
    y = 0.5 * z * (1.0 + tl.math.erf(z * SQRT_HALF))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def bias_gelu(input, bias):
    x = input if input.dim() >= 2 and input.stride(-1) == 1 else input.contiguous()
    b = bias.contiguous()
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel() == 0:
        return out
    n_cols = b.numel()
    assert x.shape[-1] == n_cols, f"bias of {n_cols} does not match input {tuple(x.shape)}"
    n_rows = x.numel() // n_cols
    BLOCK_N = min(triton.next_power_of_2(n_cols), 1024)
    BLOCK_M = min(max(4096 // BLOCK_N, 1), triton.next_power_of_2(n_rows))
    grid = (triton.cdiv(n_rows, BLOCK_M) * triton.cdiv(n_cols, BLOCK_N),)
    stride_x = x.stride(-2) if x.dim() >= 2 else n_cols  # leading dims assumed to merge
    _bias_gelu_kernel[grid](x, b, out, n_rows, n_cols, stride_x, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)
    return out
