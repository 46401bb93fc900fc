"""Fills each r x r patch transposed: the sub-row index i comes from the channel's last digit, j from the one
before it.

The channel within a group is i * r + j with i moving along the height (rows) and j along the width; this
kernel reads channel c * r * r + j * r + i. The diagonal of every patch is right and everything else is
mirrored, so the result is wrong for every upscale factor above 1.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


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
    row_base = b.to(tl.int64) * sb + (c * (R * R) + i).to(tl.int64) * sc + h.to(tl.int64) * sh
    # Output column -> (w, j): input column and sub-column of the patch (j picks the channel within the group).
    w = ow // R
    j = ow % R
    col_off = (j * R).to(tl.int64) * sc + w.to(tl.int64) * sw
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
