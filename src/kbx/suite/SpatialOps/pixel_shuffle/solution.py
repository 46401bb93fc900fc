"""pixel_shuffle in Triton: a strided gather that writes the output row by row.

The leading (batch) dims are merged into one, so the input is a (B, C*r*r, H, W) view (no copy: only H and W
are ever transposed or strided in memory) and the output a contiguous (B, C, H*r, W*r) tensor. Each program
writes a BLOCK_R x BLOCK_W tile: BLOCK_R output rows by BLOCK_W consecutive output columns. For output row
(b, c, oh) the source is fixed up to the column: i = oh % r, h = oh // r; output column ow reads input channel
c*r*r + i*r + (ow % r) at column ow // r. So one output row interleaves r input rows (one per j), each read
as a contiguous run when the input's W stride is 1, and every store is a full contiguous run. The input's four
strides are passed in, so transposed or strided inputs are read in place. Row arithmetic is per row (BLOCK_R
divisions per tile, not per element); element offsets are int64 because the bench tensors have 2^29 elements.

Memory traffic: every element is read once and written once (2 x 2 GiB for the fp32 2x bench, ~1.4 ms at
~3 TB/s; the fp16 benches move half). There is no arithmetic: the op is purely bandwidth-bound, and the only
inefficiency is the r-way interleave of reads inside a row, which the L1/L2 absorbs.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _pixel_shuffle_kernel(
    x_ptr, out_ptr,
    n_rows, C, OH, OW,
    sb, sc, sh, sw,
    R: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ow = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < n_rows
    # Output row -> (b, c, oh), and oh -> (h, i): which input row and which sub-row of the r x r patch.
    oh = rows % OH
    bc = rows // OH
    c = bc % C
    b = bc // C
    h = oh // R
    i = oh % R
    row_base = b.to(tl.int64) * sb + (c * (R * R) + i * R).to(tl.int64) * sc + h.to(tl.int64) * sh
    # Output column -> (w, j): input column and sub-column of the patch (j picks the channel within the group).
    w = ow // R
    j = ow % R
    col_off = j.to(tl.int64) * sc + w.to(tl.int64) * sw
    mask = row_mask[:, None] & (ow < OW)[None, :]
    vals = tl.load(x_ptr + row_base[:, None] + col_off[None, :], mask=mask)
    out_off = rows.to(tl.int64)[:, None] * OW + ow[None, :]
    tl.store(out_ptr + out_off, vals, mask=mask)


def pixel_shuffle(input, upscale_factor):
    r = int(upscale_factor)
    *batch, crr, H, W = input.shape
    assert crr % (r * r) == 0, "channels must be divisible by upscale_factor ** 2"
    C = crr // (r * r)
    B = math.prod(batch)
    # Merge the batch dims (a view for the layouts seen here: only H and W are permuted in memory).
    x = input.reshape(B, crr, H, W)
    out = torch.empty((*batch, C, H * r, W * r), dtype=input.dtype, device=input.device)
    OH, OW = H * r, W * r
    n_rows = B * C * OH
    if out.numel() == 0:
        return out
    assert n_rows < 2**31, "more than 2^31 output rows"
    # About 4096 elements per program: wide rows get a wide column block, narrow rows several rows.
    BLOCK_W = min(triton.next_power_of_2(OW), 1024)
    BLOCK_R = max(1, 4096 // BLOCK_W)
    grid = (triton.cdiv(n_rows, BLOCK_R), triton.cdiv(OW, BLOCK_W))
    _pixel_shuffle_kernel[grid](
        x, out, n_rows, C, OH, OW, *x.stride(), R=r, BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W, num_warps=8,
    )
    return out
