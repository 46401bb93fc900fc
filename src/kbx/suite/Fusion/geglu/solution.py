"""GEGLU in one Triton kernel: gelu(gate) * up with one read of each input and one write.

Elementwise and memory-bound. The inputs are viewed as (rows, N), N the last dim, each with its own row stride
and unit column stride: contiguous tensors and the packed layout of `proj(x).chunk(2, -1)` (rows 2I apart) are
read in place; any other layout (e.g. transposed) is made contiguous first. Programs come from a flat 1-D grid
over (row block, column block) tiles of BLOCK_M x BLOCK_N (up to 1024 contiguous columns, ~4096 elements), so
no grid axis limit is reached however the elements split into rows and columns. GELU is the exact erf form in
fp32, and the product is rounded once to the output dtype.

Traffic: 3 * numel * itemsize bytes. On an H100 (~3 TB/s) the 32768 x 16384 fp16 bench moves 3.2 GB: about
1.1 ms, against ~5.4 GB (about 1.8 ms) for gelu and the multiply as two kernels.
"""

import torch
import triton
import triton.language as tl

SQRT_HALF = tl.constexpr(0.7071067811865476)  # jit code may only read constexpr globals


@triton.jit
def _geglu_kernel(g_ptr, u_ptr, y_ptr, n_rows, n_cols, stride_g, stride_u,
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
    y = 0.5 * g * (1.0 + tl.math.erf(g * SQRT_HALF)) * u
    tl.store(y_ptr + rows * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def _rows(t, n_cols):
    """t as a (rows, n_cols) view with unit column stride, copying only when no such view exists."""
    t2 = t.reshape(-1, n_cols)
    return t2 if t2.stride(1) == 1 or n_cols == 1 else t2.contiguous()


def geglu(gate, up):
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
    _geglu_kernel[grid](g, u, out, n_rows, n_cols, g.stride(0), u.stride(0),
                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)
    return out
