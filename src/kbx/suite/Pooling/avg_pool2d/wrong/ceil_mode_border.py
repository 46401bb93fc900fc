"""Keeps the partial windows at the bottom/right border instead of dropping them (ceil_mode=True sizing).

The output size is computed with a ceiling, OH = ceil((H - kH) / sH) + 1, and the clipped border windows are
averaged over the elements they cover. With padding=0 and ceil_mode=False PyTorch floors the size and drops
those rows and columns, so whenever the windows do not tile the input the output has an extra row/column.
"""

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_SHAPE"


@triton.jit
def _pool_kernel(x_ptr, out_ptr, H, W, OH, OW, sx_p, sx_h, sx_w,
                 KH: tl.constexpr, KW: tl.constexpr, SH: tl.constexpr, SW: tl.constexpr,
                 BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < OH * OW
    oh = offs // OW
    ow = offs % OW
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    cnt = tl.zeros((BLOCK,), dtype=tl.float32)
    for kh in tl.static_range(KH):
        for kw in tl.static_range(KW):
            ih = oh * SH + kh
            iw = ow * SW + kw
            inside = mask & (ih < H) & (iw < W)
            ptr = x_ptr + plane.to(tl.int64) * sx_p + ih * sx_h + iw * sx_w
            acc += tl.load(ptr, mask=inside, other=0.0).to(tl.float32)
            cnt += inside.to(tl.float32)
    avg = acc / tl.maximum(cnt, 1.0)
    tl.store(out_ptr + plane.to(tl.int64) * OH * OW + offs, avg.to(out_ptr.dtype.element_ty), mask=mask)


def _pair(v):
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def avg_pool2d(input, kernel_size, stride=None):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    H, W = input.shape[-2:]
    x = input.reshape(-1, H, W)
    OH, OW = triton.cdiv(H - kh, sh) + 1, triton.cdiv(W - kw, sw) + 1
    out = torch.empty((x.shape[0], OH, OW), dtype=input.dtype, device=input.device)
    BLOCK = 256
    grid = (x.shape[0], triton.cdiv(OH * OW, BLOCK))
    _pool_kernel[grid](x, out, H, W, OH, OW, x.stride(0), x.stride(1), x.stride(2),
                       KH=kh, KW=kw, SH=sh, SW=sw, BLOCK=BLOCK)
    return out.reshape(*input.shape[:-2], OH, OW)
