"""Evaluates the definition literally: log(exp(a) + exp(b)), in fp32.

Fine for moderate arguments, but exp overflows to inf once an argument exceeds about 88.7, and when both are
below about -103 both exponentials underflow to 0 and the log returns -inf: non-finite results where logaddexp
is an ordinary number. Subtracting the maximum first (the stable form) avoids both.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _logaddexp_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.log(tl.exp(a) + tl.exp(b)).to(out_ptr.dtype.element_ty), mask=mask)


def logaddexp(input, other):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _logaddexp_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
