"""Per-channel int8 dequantization in Triton: one pass, (q - zero_point) * scale in fp32, one rounding.

The tensor is viewed as a 2-D matrix (rows, cols) of a contiguous copy of the input, chosen so that the channel
of an element depends on its row or on its column only, never on a division per element:
- `axis` is the last dim: rows = everything before it, cols = the channels; channel = col.
- otherwise: rows = (dims before axis) x channels, cols = the product of the dims after it; channel = row % C.
Each program handles a BLOCK_R x BLOCK_C tile whose columns are contiguous in memory (coalesced int8 loads,
coalesced stores), loads the tile's BLOCK_R or BLOCK_C scales and zero points once, and writes
fp32(q - zp) * fp32(scale), rounded once to the output dtype. The difference is exact and so, for fp16 / bf16
scales, is the product: the output is bit-identical to the definition.

Memory traffic is 1 byte read and 4 (fp32) or 2 (fp16/bf16) bytes written per element; the per-channel
parameters are negligible. On an H100 (~3 TB/s) the 32768 x 16384 fp32 bench moves 2.7 GB: about 0.9 ms.
"""

import torch
import triton
import triton.language as tl


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
