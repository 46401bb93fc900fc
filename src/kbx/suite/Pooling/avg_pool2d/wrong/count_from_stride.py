"""Divides each window sum by sH * sW (the stride area) instead of kH * kW (the window area).

The two agree for the default stride (= kernel_size), the common non-overlapping case, so a quick test with
stride=None passes; with overlapping windows (stride < kernel) or gaps (stride > kernel) every output is
scaled by the wrong factor.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _pool_kernel(x_ptr, out_ptr, OH, OW, sx_p, sx_h, sx_w,
                 KH: tl.constexpr, KW: tl.constexpr, SH: tl.constexpr, SW: tl.constexpr,
                 BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < OH * OW
    oh = offs // OW
    ow = offs % OW
    base = x_ptr + plane.to(tl.int64) * sx_p + (oh * SH) * sx_h + (ow * SW) * sx_w
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for kh in tl.static_range(KH):
        for kw in tl.static_range(KW):
            acc += tl.load(base + kh * sx_h + kw * sx_w, mask=mask, other=0.0).to(tl.float32)
    avg = acc / (SH * SW)
    tl.store(out_ptr + plane.to(tl.int64) * OH * OW + offs, avg.to(out_ptr.dtype.element_ty), mask=mask)


def _pair(v):
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def avg_pool2d(input, kernel_size, stride=None):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    H, W = input.shape[-2:]
    x = input.reshape(-1, H, W)
    OH, OW = (H - kh) // sh + 1, (W - kw) // sw + 1
    out = torch.empty((x.shape[0], OH, OW), dtype=input.dtype, device=input.device)
    BLOCK = 256
    grid = (x.shape[0], triton.cdiv(OH * OW, BLOCK))
    _pool_kernel[grid](x, out, OH, OW, x.stride(0), x.stride(1), x.stride(2),
                       KH=kh, KW=kw, SH=sh, SW=sw, BLOCK=BLOCK)
    return out.reshape(*input.shape[:-2], OH, OW)
