"""An honest pixel_shuffle as a third party writes it: one lane per output element, source index from (c, i, j, h, w).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


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
    x = input.contiguous()
    C = input.shape[-3] // (r * r)
    H, W = input.shape[-2], input.shape[-1]
    y = torch.empty(tuple(input.shape[:-3]) + (C, H * r, W * r), dtype=input.dtype, device=input.device)
    n = y.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _pixel_shuffle_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, C, H, W, R=r, BLOCK_SIZE=BLOCK_SIZE)
    return y
