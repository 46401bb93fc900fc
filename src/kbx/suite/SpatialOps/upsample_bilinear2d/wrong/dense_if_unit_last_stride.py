"""Copies the input only when its last dim is strided, then addresses it with the strides of a dense NCHW tensor.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard before flat indexing, and it sends
channels-last, transposed and strided inputs to a copy, so every such workload passes. It misses an input whose
planes are contiguous but whose samples are not C * H * W apart: the first C channels of a 2C-channel tensor, as
after x.chunk(2, dim=1): from the second sample on it interpolates the other channels instead.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


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
        scale_h = (H - 1) / (OH - 1) if OH > 1 else 0.0
        scale_w = (W - 1) / (OW - 1) if OW > 1 else 0.0
    else:
        scale_h = H / OH
        scale_w = W / OW
    # Copy only what dense indexing cannot read: a strided last dim (transposed, strided, channels-last).
    x = input if input.stride(-1) == 1 else input.contiguous()
    y = torch.empty((N, C, OH, OW), dtype=input.dtype, device=input.device)
    n_out = y.numel()
    if n_out > 0:
        BLOCK_SIZE = 1024
        _bilinear_kernel[(triton.cdiv(n_out, BLOCK_SIZE),)](
            x, y, C, H, W, OH, OW, C * H * W, H * W, W, 1,
            scale_h, scale_w, n_out, ALIGN=bool(align_corners), BLOCK_SIZE=BLOCK_SIZE)
    return y
