"""SwiGLU in one Triton kernel: silu(gate) * up with one read of each input and one write.

Elementwise and memory-bound. The inputs are viewed as (rows, N), N the last dim, with a row stride of their
own and unit column stride: contiguous tensors and the packed layout (gate and up as the two halves of one
(..., 2I) projection, rows 2I apart) are read in place, with no copy; any other layout (e.g. transposed) is
made contiguous first. Each program handles a BLOCK_M x BLOCK_N tile (BLOCK_N up to 1024 contiguous columns,
~4096 elements per tile) taken from a flat 1-D grid, so neither rows nor column blocks hit the 65535 limit of
the second grid axis. Math is fp32: silu(g) = g / (1 + exp(-g)); for very negative g, exp(-g) = inf and the
quotient is -0, which is silu's limit. The product is rounded once.

Traffic: 3 * numel * itemsize bytes. On an H100 (~3 TB/s) the 32768 x 14336 bench moves 5.6 GB in fp32
(about 1.9 ms) and 2.8 GB in bf16 (about 0.95 ms), against ~9.4 GB (fp32) for silu and multiply as two kernels.
"""

import torch
import triton
import triton.language as tl


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
