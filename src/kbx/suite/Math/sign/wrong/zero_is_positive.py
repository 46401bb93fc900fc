"""Returns 1 for x >= 0 and -1 otherwise: sign(0) comes out 1 instead of 0.

A natural way to write sign with one comparison; it is right for every nonzero number, but a tenth of the inputs are
exact zeros (and some are -0 or NaN, which must also give 0).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _sign_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.where(x >= 0, 1.0, -1.0)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def sign(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _sign_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
