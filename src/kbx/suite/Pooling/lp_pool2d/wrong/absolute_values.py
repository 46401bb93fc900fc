"""Pools |x|^p, the textbook p-norm, instead of x^p.

PyTorch raises x itself to the power p (no absolute value), so for p = 1 the output is the signed window sum
(avg_pool2d * kH kW), not the sum of magnitudes. For p = 2 and positive inputs the two agree.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, out_ptr, H, W, OH, OW, s_p, s_h, s_w, p, KH: tl.constexpr, KW: tl.constexpr,
            SH: tl.constexpr, SW: tl.constexpr, BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    o = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = o < OH * OW
    oh = o // OW
    ow = o % OW
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for kh in tl.static_range(KH):
        for kw in tl.static_range(KW):
            ih = oh * SH + kh
            iw = ow * SW + kw
            a = tl.abs(tl.load(x_ptr + plane.to(tl.int64) * s_p + ih * s_h + iw * s_w,
                               mask=mask & (ih < H) & (iw < W), other=0.0).to(tl.float32))
            acc += tl.where(a == 0.0, 0.0, tl.exp2(p * tl.log2(a)))
    count = (tl.minimum(oh * SH + KH, H) - oh * SH) * (tl.minimum(ow * SW + KW, W) - ow * SW)
    s = acc * ((KH * KW) / tl.maximum(count, 1).to(tl.float32))
    y = tl.where(s == 0.0, 0.0, tl.exp2(tl.log2(s) / p))
    tl.store(out_ptr + plane.to(tl.int64) * OH * OW + o, y.to(out_ptr.dtype.element_ty), mask=mask)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    stride = kernel_size if stride is None else stride
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    H, W = input.shape[-2:]
    OH = (H - kh + (sh - 1 if ceil_mode else 0)) // sh + 1
    OW = (W - kw + (sw - 1 if ceil_mode else 0)) // sw + 1
    OH -= 1 if ceil_mode and (OH - 1) * sh >= H else 0
    OW -= 1 if ceil_mode and (OW - 1) * sw >= W else 0
    x = input.reshape(-1, H, W)
    out = torch.empty((x.shape[0], OH, OW), dtype=x.dtype, device=x.device)
    _kernel[(x.shape[0], triton.cdiv(OH * OW, 256))](x, out, H, W, OH, OW, *x.stride(), float(norm_type),
                                                     KH=kh, KW=kw, SH=sh, SW=sw, BLOCK=256)
    return out.reshape(*input.shape[:-2], OH, OW)
