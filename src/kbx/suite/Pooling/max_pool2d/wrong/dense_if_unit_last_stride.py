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
def _max_pool2d_kernel(x_ptr, y_ptr, H, W, OH, OW, SH, SW, PH, PW, DH, DW,
                       KH: tl.constexpr, KW: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    offs = tl.program_id(1).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    out_mask = offs < OH * OW
    oh = offs // OW
    ow = offs % OW
    x_plane = x_ptr + plane * H * W  # planes assumed H * W apart
    acc = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    for kh in tl.static_range(KH):
        ih = oh * SH - PH + kh * DH
        row_ok = (ih >= 0) & (ih < H)
        for kw in tl.static_range(KW):
            iw = ow * SW - PW + kw * DW
            ok = out_mask & row_ok & (iw >= 0) & (iw < W)
            v = tl.load(x_plane + ih * W + iw, mask=ok, other=float("-inf")).to(tl.float32)
            acc = tl.maximum(acc, v)
    tl.store(y_ptr + plane * OH * OW + offs, acc.to(y_ptr.dtype.element_ty), mask=out_mask)


def _pair(v):
    return (v, v) if isinstance(v, int) else (v[0], v[1])


def _out_size(L, k, s, p, d, ceil_mode):
    num = L + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        o = -(-num // s) + 1
        if (o - 1) * s >= L + p:
            o -= 1
    else:
        o = num // s + 1
    return o


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride) if stride is not None else (kh, kw)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    H, W = input.shape[-2], input.shape[-1]
    OH = _out_size(H, kh, sh, ph, dh, ceil_mode)
    OW = _out_size(W, kw, sw, pw, dw, ceil_mode)
    # Copy only what the flat indexing cannot read: a strided last dim (transposed, strided, channels-last).
    x = input if input.stride(-1) == 1 else input.contiguous()
    planes = x.numel() // (H * W)
    y = torch.empty(input.shape[:-2] + (OH, OW), dtype=input.dtype, device=input.device)
    BLOCK_SIZE = min(triton.next_power_of_2(max(OH * OW, 1)), 1024)
    grid = (planes, triton.cdiv(OH * OW, BLOCK_SIZE))
    _max_pool2d_kernel[grid](x, y, H, W, OH, OW, sh, sw, ph, pw, dh, dw, KH=kh, KW=kw, BLOCK_SIZE=BLOCK_SIZE)
    return y
