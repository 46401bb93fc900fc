"""Copies the input only when its rows are not contiguous, then indexes it as dense planes H * W apart.

Plausible: checking stride(-1) == 1 and stride(-2) == W ("each plane is a dense H x W block") sends transposed
and strided inputs to a copy and reads contiguous ones in place, so every such workload passes. It misses an
input whose planes are dense but not H * W apart from one channel to the next sample: the first C channels of a
2C-channel tensor, as after x.chunk(2, dim=1): from the second sample on it averages the other channels.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _avg_pool2d_kernel(x_ptr, y_ptr, H, W, OH, OW, SH, SW, KH: tl.constexpr, KW: tl.constexpr,
                       BLOCK_SIZE: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    offs = tl.program_id(1).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    out_mask = offs < OH * OW
    oh = offs // OW
    ow = offs % OW
    x_plane = x_ptr + plane * H * W  # planes assumed H * W apart
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for kh in tl.static_range(KH):
        for kw in tl.static_range(KW):
            ih = oh * SH + kh
            iw = ow * SW + kw
            acc += tl.load(x_plane + ih * W + iw, mask=out_mask, other=0.0).to(tl.float32)
    out = acc / (KH * KW)
    tl.store(y_ptr + plane * OH * OW + offs, out.to(y_ptr.dtype.element_ty), mask=out_mask)


def _pair(v):
    return (v, v) if isinstance(v, int) else (v[0], v[1])


def avg_pool2d(input, kernel_size, stride=None):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride) if stride is not None else (kh, kw)
    H, W = input.shape[-2], input.shape[-1]
    OH = (H - kh) // sh + 1
    OW = (W - kw) // sw + 1
    # Each plane must be one dense H x W block for the flat indexing; copy only when it is not.
    planes_dense = input.stride(-1) == 1 and input.stride(-2) == W
    x = input if planes_dense else input.contiguous()
    planes = x.numel() // (H * W)
    y = torch.empty(input.shape[:-2] + (OH, OW), dtype=input.dtype, device=input.device)
    BLOCK_SIZE = min(triton.next_power_of_2(max(OH * OW, 1)), 1024)
    grid = (planes, triton.cdiv(OH * OW, BLOCK_SIZE))
    _avg_pool2d_kernel[grid](x, y, H, W, OH, OW, sh, sw, KH=kh, KW=kw, BLOCK_SIZE=BLOCK_SIZE)
    return y
