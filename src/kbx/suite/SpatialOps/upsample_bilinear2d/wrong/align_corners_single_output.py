"""align_corners=True maps output o to source o * (H - 1) / (OH - 1), written without the OH = 1 case.

For an output size of 1 along a dim (resizing to a single row or column, a legal `size`), PyTorch takes the
scale as 0 (the source is pixel 0); this wrapper divides by OH - 1 = 0 and raises ZeroDivisionError.
`check_ac_single_row` (33 x 17 resized to 1 x 9 with align_corners) catches it.
"""

import torch
import triton
import triton.language as tl

EXPECT = "RUNTIME_ERROR"


@triton.jit
def _bilinear_kernel(x_ptr, y_ptr, C, H, W, OH, OW, sxn, sxc, sxh, sxw, scale_h, scale_w, n_out,
                     ALIGN: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_out
    ow = offs % OW
    oh = (offs // OW) % OH
    c = (offs // (OW * OH)) % C
    n = offs // (OW * OH * C)
    if ALIGN:
        src_h = oh.to(tl.float32) * scale_h
        src_w = ow.to(tl.float32) * scale_w
    else:
        src_h = tl.maximum((oh.to(tl.float32) + 0.5) * scale_h - 0.5, 0.0)
        src_w = tl.maximum((ow.to(tl.float32) + 0.5) * scale_w - 0.5, 0.0)
    h0 = src_h.to(tl.int64)
    w0 = src_w.to(tl.int64)
    h1 = tl.minimum(h0 + 1, H - 1)
    w1 = tl.minimum(w0 + 1, W - 1)
    lh = src_h - h0.to(tl.float32)
    lw = src_w - w0.to(tl.float32)
    base = x_ptr + n * sxn + c * sxc
    v00 = tl.load(base + h0 * sxh + w0 * sxw, mask=mask, other=0.0).to(tl.float32)
    v01 = tl.load(base + h0 * sxh + w1 * sxw, mask=mask, other=0.0).to(tl.float32)
    v10 = tl.load(base + h1 * sxh + w0 * sxw, mask=mask, other=0.0).to(tl.float32)
    v11 = tl.load(base + h1 * sxh + w1 * sxw, mask=mask, other=0.0).to(tl.float32)
    out = (1.0 - lh) * ((1.0 - lw) * v00 + lw * v01) + lh * ((1.0 - lw) * v10 + lw * v11)
    tl.store(y_ptr + offs, out.to(y_ptr.dtype.element_ty), mask=mask)


def upsample_bilinear2d(input, size, align_corners=False):
    N, C, H, W = input.shape
    OH, OW = size
    if align_corners:
        scale_h = (H - 1) / (OH - 1)
        scale_w = (W - 1) / (OW - 1)
    else:
        scale_h = H / OH
        scale_w = W / OW
    y = torch.empty((N, C, OH, OW), dtype=input.dtype, device=input.device)
    n_out = y.numel()
    if n_out > 0:
        BLOCK_SIZE = 1024
        _bilinear_kernel[(triton.cdiv(n_out, BLOCK_SIZE),)](
            input, y, C, H, W, OH, OW, input.stride(0), input.stride(1), input.stride(2), input.stride(3),
            scale_h, scale_w, n_out, ALIGN=bool(align_corners), BLOCK_SIZE=BLOCK_SIZE)
    return y
