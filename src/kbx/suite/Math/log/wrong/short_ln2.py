"""Computes ln(x) as log2(x) * 0.6931, ln 2 written to four significant digits.

The constant is 7e-5 too small in relative terms, so every result with |log x| above about 0.15 is off by more than
the fp32 tolerance; fp16's looser rtol (1e-3) hides it.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _log_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.log2(x) * 0.6931
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def log(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _log_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
