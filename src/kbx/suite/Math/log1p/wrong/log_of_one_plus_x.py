"""Computes log1p(x) as log(1 + x).

Right to a few ulp once |x| is not small, and the special values all come out right, but 1 + x rounds to fp32 before
the log: every |x| below 6e-8 gives 0, and |x| around 1e-5 keeps only two or three correct digits, far outside the
relative tolerance the task applies to small results.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _log1p_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.log(1.0 + x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def log1p(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _log1p_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
