"""Copies the input only when its last dim is strided, then indexes it as dense planes H * W apart.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard before a flat-indexing Triton
kernel, and it sends channels-last, transposed and strided inputs to a copy, so every such workload passes. It
misses an input whose planes are contiguous but not H * W apart from one channel to the next sample: the first
C channels of a 2C-channel tensor, as after x.chunk(2, dim=1): from the second sample on it pools the other
channels instead.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _lp_pool2d_kernel(x_ptr, y_ptr, H, W, OH, OW, SH, SW, p, neg, P_KIND: tl.constexpr, KH: tl.constexpr,
                      KW: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # P_KIND: 1 (p = 1, signed sum), 2 (p = 2), 0 (any other p: |x|^p, times neg where x < 0)
    plane = tl.program_id(0).to(tl.int64)
    offs = tl.program_id(1).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    out_mask = offs < OH * OW
    oh = offs // OW
    ow = offs % OW
    x_plane = x_ptr + plane * H * W  # planes assumed H * W apart
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for kh in tl.static_range(KH):
        ih = oh * SH + kh
        for kw in tl.static_range(KW):
            iw = ow * SW + kw
            ok = out_mask & (ih < H) & (iw < W)
            x = tl.load(x_plane + ih * W + iw, mask=ok, other=0.0).to(tl.float32)
            if P_KIND == 1:
                v = x
            elif P_KIND == 2:
                v = x * x
            else:
                mag = tl.exp2(p * tl.log2(tl.abs(x)))
                v = tl.where(x < 0, neg * mag, mag)
            acc += tl.where(ok, v, 0.0)
    rows = tl.minimum(oh * SH + KH, H) - oh * SH
    cols = tl.minimum(ow * SW + KW, W) - ow * SW
    s = acc * ((KH * KW) / (rows * cols).to(tl.float32))
    if P_KIND == 1:
        out = s
    elif P_KIND == 2:
        out = tl.sqrt(s)
    else:
        out = tl.exp2(tl.log2(s) / p)
    tl.store(y_ptr + plane * OH * OW + offs, out.to(y_ptr.dtype.element_ty), mask=out_mask)


def _pair(v):
    return (v, v) if isinstance(v, int) else (v[0], v[1])


def _out_size(L, k, s, ceil_mode):
    if ceil_mode:
        o = -(-(L - k) // s) + 1
        if (o - 1) * s >= L:
            o -= 1
    else:
        o = (L - k) // s + 1
    return o


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride) if stride is not None else (kh, kw)
    H, W = input.shape[-2], input.shape[-1]
    OH = _out_size(H, kh, sh, ceil_mode)
    OW = _out_size(W, kw, sw, ceil_mode)
    p = float(norm_type)
    kind = 1 if p == 1.0 else (2 if p == 2.0 else 0)
    # x^p for x < 0, as torch.pow: (-1)^p |x|^p for an integer p, NaN for any other.
    neg = (-1.0 if int(p) % 2 else 1.0) if p.is_integer() else float("nan")
    # Copy only what the flat indexing cannot read: a strided last dim (transposed, strided, channels-last).
    x = input if input.stride(-1) == 1 else input.contiguous()
    planes = x.numel() // (H * W)
    y = torch.empty(input.shape[:-2] + (OH, OW), dtype=input.dtype, device=input.device)
    BLOCK_SIZE = min(triton.next_power_of_2(max(OH * OW, 1)), 1024)
    grid = (planes, triton.cdiv(OH * OW, BLOCK_SIZE))
    _lp_pool2d_kernel[grid](x, y, H, W, OH, OW, sh, sw, p, neg, P_KIND=kind, KH=kh, KW=kw, BLOCK_SIZE=BLOCK_SIZE)
    return y
