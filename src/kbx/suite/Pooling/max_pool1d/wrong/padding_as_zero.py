"""Pads with zeros: out-of-range taps load 0.0 instead of -inf.

Right for non-negative inputs (after a ReLU), but a border window whose real inputs are all negative returns 0
instead of its largest input, and in ceil_mode the overhanging last window does the same.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _pool_kernel(x_ptr, out_ptr, L, OL, s_row, s_l, K: tl.constexpr, S: tl.constexpr, P: tl.constexpr,
                 D: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    o = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = o < OL
    acc = tl.full((BLOCK,), float("-inf"), tl.float32)
    for k in tl.static_range(K):
        i = o * S - P + k * D
        v = tl.load(x_ptr + row.to(tl.int64) * s_row + i * s_l, mask=mask & (i >= 0) & (i < L), other=0.0)
        acc = tl.maximum(acc, v.to(tl.float32))
    tl.store(out_ptr + row.to(tl.int64) * OL + o, acc.to(out_ptr.dtype.element_ty), mask=mask)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    k, s, p, d = kernel_size, kernel_size if stride is None else stride, padding, dilation
    x = input.reshape(-1, input.shape[-1])
    L = x.shape[-1]
    OL = (L + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (OL - 1) * s >= L + p:
        OL -= 1
    out = torch.empty((x.shape[0], OL), dtype=x.dtype, device=x.device)
    _pool_kernel[(x.shape[0], triton.cdiv(OL, 256))](x, out, L, OL, x.stride(0), x.stride(1), K=k, S=s, P=p, D=d,
                                                       BLOCK=256)
    return out.reshape(*input.shape[:-1], OL)
