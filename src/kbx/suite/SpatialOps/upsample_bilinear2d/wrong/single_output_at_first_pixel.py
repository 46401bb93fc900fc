"""The solution with a scale of 0 for every output size of 1, whatever align_corners says.

PyTorch takes the scale as 0 for a single output only with align_corners=True (the corner pixels line up, so the
one output is input pixel 0); with align_corners=False the one output's source is max(0.5 * H - 0.5, 0), the
input's centre. This wrapper samples pixel 0 in both modes. `check_single_column` (36 x 33 resized to 9 x 1,
align_corners=False) catches it; `check_ac_single_row`, the only other workload with an output size of 1, has
align_corners=True, where the two agree.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _source_index(dst, scale, size_in, ALIGN_CORNERS: tl.constexpr):
    # Output index -> (low index, high index, weight of the high one) along one dim.
    if ALIGN_CORNERS:
        src = dst.to(tl.float32) * scale
    else:
        # Pixel centres line up; sources left of the first centre clamp to it.
        src = tl.maximum((dst.to(tl.float32) + 0.5) * scale - 0.5, 0.0)
    i0 = src.to(tl.int32)  # src >= 0, so truncation is floor
    i1 = tl.minimum(i0 + 1, size_in - 1)
    return i0, i1, src - i0.to(tl.float32)


@triton.jit
def _upsample_bilinear2d_kernel(
    x_ptr, out_ptr,
    n_rows, C, H, W, OH, OW, scale_h, scale_w,
    sn, sc, sh, sw,
    ALIGN_CORNERS: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ow = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < n_rows
    col_mask = ow < OW
    # Output row -> (plane n*C + c, output row oh).
    oh = rows % OH
    plane = rows // OH
    plane_off = (plane // C).to(tl.int64) * sn + (plane % C).to(tl.int64) * sc

    h0, h1, lh = _source_index(oh, scale_h, H, ALIGN_CORNERS)
    w0, w1, lw = _source_index(ow, scale_w, W, ALIGN_CORNERS)
    r0 = plane_off + h0.to(tl.int64) * sh
    r1 = plane_off + h1.to(tl.int64) * sh
    c0 = w0.to(tl.int64) * sw
    c1 = w1.to(tl.int64) * sw

    mask = row_mask[:, None] & col_mask[None, :]
    v00 = tl.load(x_ptr + r0[:, None] + c0[None, :], mask=mask, other=0.0).to(tl.float32)
    v01 = tl.load(x_ptr + r0[:, None] + c1[None, :], mask=mask, other=0.0).to(tl.float32)
    v10 = tl.load(x_ptr + r1[:, None] + c0[None, :], mask=mask, other=0.0).to(tl.float32)
    v11 = tl.load(x_ptr + r1[:, None] + c1[None, :], mask=mask, other=0.0).to(tl.float32)
    lw_ = lw[None, :]
    top = (1.0 - lw_) * v00 + lw_ * v01
    bottom = (1.0 - lw_) * v10 + lw_ * v11
    lh_ = lh[:, None]
    out = (1.0 - lh_) * top + lh_ * bottom
    out_off = rows.to(tl.int64)[:, None] * OW + ow[None, :]
    tl.store(out_ptr + out_off, out.to(out_ptr.dtype.element_ty), mask=mask)


def _scale(size_in, size_out, align_corners):
    if size_out == 1:
        return 0.0  # a single output samples the first pixel
    return (size_in - 1) / (size_out - 1) if align_corners else size_in / size_out


def upsample_bilinear2d(input, size, align_corners=False):
    N, C, H, W = input.shape
    OH, OW = size
    out = torch.empty((N, C, OH, OW), dtype=input.dtype, device=input.device)
    n_rows = N * C * OH
    if out.numel() == 0:
        return out
    assert n_rows < 2**31, "more than 2^31 output rows"
    BLOCK_W = min(triton.next_power_of_2(OW), 512)
    BLOCK_R = max(1, 4096 // BLOCK_W)
    grid = (triton.cdiv(n_rows, BLOCK_R), triton.cdiv(OW, BLOCK_W))
    _upsample_bilinear2d_kernel[grid](
        input, out, n_rows, C, H, W, OH, OW,
        _scale(H, OH, align_corners), _scale(W, OW, align_corners), *input.stride(),
        ALIGN_CORNERS=bool(align_corners), BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W, num_warps=8,
    )
    return out
