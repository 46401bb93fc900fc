"""Computes element offsets, `row * C + col`, in 32-bit integers.

The same tiling as the solution (a BLOCK_R x BLOCK_C tile per program, the channel's scale and zero point per
row or per column), except that the row and column indices come from `tl.program_id` as int32 and are never
widened, so `rows * C_dim + cols` is int32. Every check and the timed benches stay below 2^31 elements;
`bench_over_2_31` (65537 rows of 32768, axis 0) does not: its last row starts at 2^31, which wraps to -2^31, so
that row is read from 2 GB before the int8 input and written 8 GB (fp32) or 4 GB (fp16, bf16) before the
output. Where those addresses are unmapped the kernel faults (CRASHED); where other allocations live there it
reads and overwrites them and the real last row stays as torch.empty left it (MISMATCH, or NONFINITE if that
holds an inf or NaN).
Which one depends on the allocator, never on the kernel, so all three are declared; it must not pass.

GPU only: only a GPU runs bench workloads; the interpreter's sizes never reach 2^31.
"""

import torch
import triton
import triton.language as tl

EXPECT = ("CRASHED", "MISMATCH", "NONFINITE")
DEVICE = "cuda"


@triton.jit
def _dequantize_kernel(
    q_ptr, scale_ptr, zp_ptr, out_ptr, R, C_dim, num_channels,
    CHANNEL_ON_COLS: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)  # int32, and so is rows * C_dim below
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    row_ok = rows < R
    col_ok = cols < C_dim
    mask = row_ok[:, None] & col_ok[None, :]

    # The tile's channel parameters: one per column or one per row.
    if CHANNEL_ON_COLS:
        s = tl.load(scale_ptr + cols, mask=col_ok, other=0.0).to(tl.float32)[None, :]
        zp = tl.load(zp_ptr + cols, mask=col_ok, other=0).to(tl.float32)[None, :]
    else:
        ch = rows % num_channels
        s = tl.load(scale_ptr + ch, mask=row_ok, other=0.0).to(tl.float32)[:, None]
        zp = tl.load(zp_ptr + ch, mask=row_ok, other=0).to(tl.float32)[:, None]

    offsets = rows[:, None] * C_dim + cols[None, :]
    q = tl.load(q_ptr + offsets, mask=mask, other=0).to(tl.float32)
    out = (q - zp) * s  # the difference is exact; the product is rounded once (exact for fp16/bf16 scales)
    tl.store(out_ptr + offsets, out.to(out_ptr.dtype.element_ty), mask=mask)


def dequantize_per_channel_int8(input, scales, zero_points, axis):
    q = input.contiguous()
    axis = axis % q.dim()
    num_channels = q.shape[axis]
    out = torch.empty(q.shape, device=q.device, dtype=scales.dtype)
    if q.numel() == 0:
        return out
    inner = 1
    for size in q.shape[axis + 1:]:
        inner *= size
    on_cols = inner == 1  # the channel dim is the innermost (non-trivial) dim
    if on_cols:
        R, C = q.numel() // num_channels, num_channels
    else:
        R, C = q.numel() // inner, inner
    BLOCK_C = min(1024, triton.next_power_of_2(C))
    BLOCK_R = max(1, 4096 // BLOCK_C)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C))
    _dequantize_kernel[grid](
        q, scales.contiguous(), zero_points.contiguous(), out, R, C, num_channels,
        CHANNEL_ON_COLS=on_cols, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4,
    )
    return out
