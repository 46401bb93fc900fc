"""Flattens gate and up into rows with no reshape, stepping rows by their second-to-last stride.

A last-dim-contiguous operand is read in place as numel / N rows, row m at m * stride(-2): right when the
leading dims merge into one evenly strided dim (every contiguous input, the packed halves of one projection);
other layouts are made contiguous. A 3-D gate holding the first S positions of longer sequences (`g[:, :S]`,
batch stride not S rows) is read from the wrong rows after the first batch entry; `gate.reshape(-1, N)` (a copy
when the dims do not merge) would have been right.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _swiglu_kernel(g_ptr, u_ptr, y_ptr, n_rows, n_cols, stride_g, stride_u,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_N)
    rows = (pid // n_col_blocks) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % n_col_blocks) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    rows = rows.to(tl.int64)[:, None]  # 64-bit: row * stride can pass 2^31
    cols = cols[None, :]

    g = tl.load(g_ptr + rows * stride_g + cols, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + rows * stride_u + cols, mask=mask, other=0.0).to(tl.float32)
    y = g / (1.0 + tl.exp(-g)) * u
    tl.store(y_ptr + rows * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def _rows(t, n_cols):
    """t as a (rows, n_cols) view with unit column stride, copying only when no such view exists."""
    if t.dim() >= 2 and t.stride(-1) == 1:  # rows stepped by stride(-2), leading dims assumed to merge
        return t.as_strided((t.numel() // n_cols, n_cols), (t.stride(-2), 1))
    t2 = t.reshape(-1, n_cols)
    return t2 if t2.stride(1) == 1 or n_cols == 1 else t2.contiguous()


def swiglu(gate, up):
    assert gate.shape == up.shape, f"gate {tuple(gate.shape)} and up {tuple(up.shape)} differ"
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    if gate.numel() == 0:
        return out
    n_cols = gate.shape[-1] if gate.dim() > 0 else 1
    g, u = _rows(gate, n_cols), _rows(up, n_cols)
    n_rows = g.shape[0]
    BLOCK_N = min(triton.next_power_of_2(n_cols), 1024)
    BLOCK_M = min(max(4096 // BLOCK_N, 1), triton.next_power_of_2(n_rows))
    grid = (triton.cdiv(n_rows, BLOCK_M) * triton.cdiv(n_cols, BLOCK_N),)
    _swiglu_kernel[grid](g, u, out, n_rows, n_cols, g.stride(0), u.stride(0),
                         BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)
    return out
