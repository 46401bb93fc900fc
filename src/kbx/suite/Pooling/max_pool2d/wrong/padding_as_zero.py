"""Treats padding as zeros: out-of-range window taps load 0.0 instead of -inf.

Natural when porting an average-pool or convolution kernel, whose padding is zero. With non-negative inputs
(after a ReLU) it happens to be right, but a border window whose inputs are all negative returns 0 instead
of its largest input.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _pool_kernel(x_ptr, out_ptr, C, H, W, OH, OW, sn, sc, sh, sw,
                 KH: tl.constexpr, KW: tl.constexpr, SH: tl.constexpr, SW: tl.constexpr,
                 PH: tl.constexpr, PW: tl.constexpr, DH: tl.constexpr, DW: tl.constexpr, BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < OH * OW
    oh = offs // OW
    ow = offs % OW
    base = x_ptr + (plane // C).to(tl.int64) * sn + (plane % C).to(tl.int64) * sc
    acc = tl.full((BLOCK,), float("-inf"), tl.float32)
    for kh in tl.static_range(KH):
        for kw in tl.static_range(KW):
            ih = oh * SH - PH + kh * DH
            iw = ow * SW - PW + kw * DW
            ok = mask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            v = tl.load(base + ih * sh + iw * sw, mask=ok, other=0.0).to(tl.float32)
            acc = tl.maximum(acc, v)
    tl.store(out_ptr + plane.to(tl.int64) * OH * OW + offs, acc.to(out_ptr.dtype.element_ty), mask=mask)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _size(n, k, s, p, d, ceil_mode):
    out = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    return out - 1 if ceil_mode and (out - 1) * s >= n + p else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    (kh, kw), (sh, sw) = _pair(kernel_size), _pair(kernel_size if stride is None else stride)
    (ph, pw), (dh, dw) = _pair(padding), _pair(dilation)
    x = input if input.dim() == 4 else input.unsqueeze(0)
    N, C, H, W = x.shape
    OH, OW = _size(H, kh, sh, ph, dh, ceil_mode), _size(W, kw, sw, pw, dw, ceil_mode)
    out = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device)
    BLOCK = 256
    _pool_kernel[(N * C, triton.cdiv(OH * OW, BLOCK))](
        x, out, C, H, W, OH, OW, *x.stride(), KH=kh, KW=kw, SH=sh, SW=sw, PH=ph, PW=pw, DH=dh, DW=dw, BLOCK=BLOCK)
    return out if input.dim() == 4 else out.squeeze(0)
