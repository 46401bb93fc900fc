"""Evaluates an accurate x >= 0 approximation of erf but forgets to restore the sign for x < 0.

Abramowitz & Stegun 7.1.26 (error below 1.5e-7) is only valid for x >= 0; the author takes |x| to stay in its
domain and then returns erf(|x|), so every negative input gets a positive result.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _erf_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    ax = tl.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * ax)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    y = 1.0 - poly * tl.exp(-ax * ax)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def erf(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _erf_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
