"""Ignores count_include_pad: every window is divided by its size including the padding.

The default (count_include_pad=True) is right; with count_include_pad=False the border windows, which overlap
the padding, must be divided only by the number of real inputs they cover, so they come out too small here.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _pool_kernel(x_ptr, out_ptr, L, OL, s_row, s_l, K: tl.constexpr, S: tl.constexpr, P: tl.constexpr,
                 BLOCK: tl.constexpr):
    row = tl.program_id(0)
    o = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = o < OL
    start = o * S - P
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in tl.static_range(K):
        i = start + k
        acc += tl.load(x_ptr + row.to(tl.int64) * s_row + i * s_l, mask=mask & (i >= 0) & (i < L),
                       other=0.0).to(tl.float32)
    divisor = tl.minimum(start + K, L + P) - start
    tl.store(out_ptr + row.to(tl.int64) * OL + o, (acc / divisor).to(out_ptr.dtype.element_ty), mask=mask)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    k, s, p = kernel_size, kernel_size if stride is None else stride, padding
    x = input.reshape(-1, input.shape[-1])
    L = x.shape[-1]
    OL = (L + 2 * p - k + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (OL - 1) * s >= L + p:
        OL -= 1
    out = torch.empty((x.shape[0], OL), dtype=x.dtype, device=x.device)
    _pool_kernel[(x.shape[0], triton.cdiv(OL, 256))](x, out, L, OL, x.stride(0), x.stride(1), K=k, S=s, P=p,
                                                       BLOCK=256)
    return out.reshape(*input.shape[:-1], OL)
