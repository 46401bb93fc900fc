"""Copies the input only when its last dim is strided, then addresses it with the strides of a dense NCHW tensor.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard before dense indexing, and it sends
channels-last inputs to a copy, so every such workload passes. It misses an input whose planes are contiguous but
whose samples are not C * H * W apart: the first C channels of a tensor with twice as many, as after
x.chunk(2, dim=1): from the second sample on it convolves the other half.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _dw_conv2d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, H, W, OH, OW, C_out, mult, SH, SW, PH, PW, DH, DW,
                      sxn, sxc, sxh, sxw, KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr,
                      BLOCK_SIZE: tl.constexpr):
    n = tl.program_id(0).to(tl.int64)
    o = tl.program_id(1).to(tl.int64)
    offs = tl.program_id(2).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    out_mask = offs < OH * OW
    oh = offs // OW
    ow = offs % OW
    ci = o // mult
    x_chan = x_ptr + n * sxn + ci * sxc
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for r in tl.static_range(KH):
        ih = oh * SH - PH + r * DH
        for s in tl.static_range(KW):
            iw = ow * SW - PW + s * DW
            ok = out_mask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            w = tl.load(w_ptr + (o * KH + r) * KW + s).to(tl.float32)
            xv = tl.load(x_chan + ih * sxh + iw * sxw, mask=ok, other=0.0).to(tl.float32)
            acc += w * xv
    if HAS_BIAS:
        acc += tl.load(b_ptr + o).to(tl.float32)
    tl.store(y_ptr + (n * C_out + o) * OH * OW + offs, acc.to(y_ptr.dtype.element_ty), mask=out_mask)


def _pair(v):
    return (v, v) if isinstance(v, int) else (v[0], v[1])


def conv2d_depthwise(input, weight, bias=None, stride=1, padding=0, dilation=1):
    N, C_in, H, W = input.shape
    C_out, _, KH, KW = weight.shape
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    OH = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
    OW = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    w = weight.contiguous()
    # Copy only what dense indexing cannot read: a strided last dim (channels-last, transposed).
    x = input if input.stride(-1) == 1 else input.contiguous()
    y = torch.empty((N, C_out, OH, OW), dtype=input.dtype, device=input.device)
    if y.numel() > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(OH * OW), 1024)
        grid = (N, C_out, triton.cdiv(OH * OW, BLOCK_SIZE))
        b = bias if bias is not None else w
        _dw_conv2d_kernel[grid](x, w, b, y, H, W, OH, OW, C_out, C_out // C_in, sh, sw, ph, pw, dh, dw,
                                C_in * H * W, H * W, W, 1,
                                KH=KH, KW=KW, HAS_BIAS=bias is not None, BLOCK_SIZE=BLOCK_SIZE)
    return y
