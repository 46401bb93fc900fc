"""Takes the channel of an element to be its flat offset modulo the number of channels, which is right only
when `axis` is the last dim (activations quantized per feature).

For axis = 0 of a 2-D weight (one scale per row) or axis = 1 of an NCHW tensor, consecutive elements of a
row share one channel, but this version cycles through all channels along the row.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _dequantize_kernel(
    q_ptr, scale_ptr, zp_ptr, out_ptr, R, C_dim, num_channels,
    CHANNEL_ON_COLS: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    row_ok = rows < R
    col_ok = cols < C_dim
    mask = row_ok[:, None] & col_ok[None, :]

    # The tile's channel parameters: one per column or one per row.
    if CHANNEL_ON_COLS:
        ch = cols % num_channels
        s = tl.load(scale_ptr + ch, mask=col_ok, other=0.0).to(tl.float32)[None, :]
        zp = tl.load(zp_ptr + ch, mask=col_ok, other=0).to(tl.float32)[None, :]
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
    on_cols = True  # the channel of flat offset i is i % num_channels
    R, C = 1, q.numel()
    BLOCK_C = min(1024, triton.next_power_of_2(C))
    BLOCK_R = max(1, 4096 // BLOCK_C)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C))
    _dequantize_kernel[grid](
        q, scales.contiguous(), zero_points.contiguous(), out, R, C, num_channels,
        CHANNEL_ON_COLS=on_cols, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4,
    )
    return out
