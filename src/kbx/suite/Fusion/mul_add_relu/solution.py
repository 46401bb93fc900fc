"""Per-channel multiply-add + ReLU in one Triton kernel, reading NCHW or channels-last memory in place.

Elementwise with a per-channel operand, memory-bound. The kernel views the input as a (rows, cols) matrix of
its memory order and reads the channel of an element from whichever axis carries it:

* NCHW (contiguous): rows = N * C planes of cols = H * W elements; the channel is row % C, so a tile loads
  one scale and one shift per row and broadcasts them along the row.
* channels-last (memory order N, H, W, C): rows = N * H * W pixels of cols = C channels; the channel is the
  column, so a tile loads BLOCK_N scales and shifts once and reuses them for all its rows.

No copy is made for either layout (other layouts are made contiguous first), and the output is allocated in the
input's memory format. Programs come from a flat 1-D grid over BLOCK_M x BLOCK_N tiles (~4096 elements;
BLOCK_N up to 1024), so tiny planes (2-D inputs have H * W = 1) and huge ones both fill the tile. y = x * s + b
is evaluated in fp32 and clamped at 0, then rounded once.

Traffic: 2 * numel * itemsize bytes. On an H100 (~3 TB/s) the 64 x 256 x 128 x 128 fp32 bench moves 2.1 GB:
about 0.75 ms, against ~6.4 GB for multiply, add and ReLU as three kernels.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _mul_add_relu_kernel(x_ptr, s_ptr, b_ptr, y_ptr, n_rows, n_cols, C,
                         CHANNEL_IS_COL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_N)
    rows = (pid // n_col_blocks) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % n_col_blocks) * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < n_rows
    col_mask = cols < n_cols
    mask = row_mask[:, None] & col_mask[None, :]
    offs = rows.to(tl.int64)[:, None] * n_cols + cols[None, :]  # 64-bit: numel can pass 2^31

    if CHANNEL_IS_COL:
        s = tl.load(s_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        b = tl.load(b_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)[None, :]
    else:
        chan = rows % C
        s = tl.load(s_ptr + chan, mask=row_mask, other=0.0).to(tl.float32)[:, None]
        b = tl.load(b_ptr + chan, mask=row_mask, other=0.0).to(tl.float32)[:, None]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.maximum(x * s + b, 0.0)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def mul_add_relu(input, scale, shift):
    N, C = input.shape[0], input.shape[1]
    plane = math.prod(input.shape[2:])
    if input.dim() == 4 and input.is_contiguous(memory_format=torch.channels_last) and not input.is_contiguous():
        x, channel_is_col = input, True  # memory order (N, H, W, C)
        n_rows, n_cols = N * plane, C
    else:
        x, channel_is_col = input.contiguous(), False
        n_rows, n_cols = N * C, plane
    out = torch.empty_like(x)  # keeps the memory format
    if x.numel() == 0:
        return out
    BLOCK_N = min(triton.next_power_of_2(n_cols), 1024)
    BLOCK_M = min(max(4096 // BLOCK_N, 1), triton.next_power_of_2(n_rows))
    grid = (triton.cdiv(n_rows, BLOCK_M) * triton.cdiv(n_cols, BLOCK_N),)
    _mul_add_relu_kernel[grid](x, scale.contiguous(), shift.contiguous(), out, n_rows, n_cols, C,
                               CHANNEL_IS_COL=channel_is_col, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)
    return out
