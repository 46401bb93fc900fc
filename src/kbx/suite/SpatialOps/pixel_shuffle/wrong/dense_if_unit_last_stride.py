"""Copies the input only when its last dim is strided, then computes source offsets as for a dense tensor.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard before flat indexing, and it sends
transposed and strided inputs to a copy, so every such workload passes. It misses an input whose (H, W) planes
are contiguous but whose samples are not C r^2 H W apart: the first C r^2 channels of a tensor with twice as many,
as after x.chunk(2, dim=1): from the second sample on it shuffles the other channels instead.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _pixel_shuffle_kernel(x_ptr, y_ptr, n, C, H, W, R: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    OW = W * R
    OH = H * R
    ox = offs % OW
    oy = (offs // OW) % OH
    c = (offs // (OW * OH)) % C
    b = offs // (OW * OH * C)
    src_c = c * R * R + (oy % R) * R + (ox % R)
    src = ((b * (C * R * R) + src_c) * H + oy // R) * W + ox // R
    tl.store(y_ptr + offs, tl.load(x_ptr + src, mask=mask), mask=mask)


def pixel_shuffle(input, upscale_factor):
    r = int(upscale_factor)
    # Copy only what the flat indexing cannot read: a strided last dim (transposed, strided).
    x = input if input.stride(-1) == 1 else input.contiguous()
    C = input.shape[-3] // (r * r)
    H, W = input.shape[-2], input.shape[-1]
    y = torch.empty(tuple(input.shape[:-3]) + (C, H * r, W * r), dtype=input.dtype, device=input.device)
    n = y.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _pixel_shuffle_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, C, H, W, R=r, BLOCK_SIZE=BLOCK_SIZE)
    return y
