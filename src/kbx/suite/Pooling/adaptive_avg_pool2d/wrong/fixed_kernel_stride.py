"""Turns the adaptive pool into a fixed one: stride = H // OH, kernel = H - (OH - 1) * stride (same for W).

The usual shortcut for exporting adaptive pooling; it is exact when H is a multiple of OH (the smoke test)
but otherwise every window has the same size and position grid, unlike PyTorch's floor/ceil windows, so the
middle windows cover different rows.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _pool_kernel(x_ptr, out_ptr, OH, OW, s_p, s_h, s_w,
                 KH: tl.constexpr, KW: tl.constexpr, SH: tl.constexpr, SW: tl.constexpr, BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    o = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = o < OH * OW
    base = x_ptr + plane.to(tl.int64) * s_p + (o // OW) * SH * s_h + (o % OW) * SW * s_w
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for kh in range(KH):
        for kw in range(KW):
            acc += tl.load(base + kh * s_h + kw * s_w, mask=mask, other=0.0).to(tl.float32)
    avg = acc / (KH * KW)
    tl.store(out_ptr + plane.to(tl.int64) * OH * OW + o, avg.to(out_ptr.dtype.element_ty), mask=mask)


def adaptive_avg_pool2d(input, output_size):
    H, W = input.shape[-2:]
    oh, ow = (output_size, output_size) if isinstance(output_size, int) else output_size
    OH, OW = (H if oh is None else oh), (W if ow is None else ow)
    sh, sw = max(H // OH, 1), max(W // OW, 1)
    kh, kw = max(H - (OH - 1) * sh, 1), max(W - (OW - 1) * sw, 1)
    x = input.reshape(-1, H, W)
    out = torch.empty((x.shape[0], OH, OW), dtype=x.dtype, device=x.device)
    _pool_kernel[(x.shape[0], triton.cdiv(OH * OW, 128))](x, out, OH, OW, *x.stride(), KH=kh, KW=kw, SH=sh,
                                                          SW=sw, BLOCK=128)
    return out.reshape(*input.shape[:-2], OH, OW)
