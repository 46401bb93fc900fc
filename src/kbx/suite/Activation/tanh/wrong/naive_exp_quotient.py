"""The textbook quotient (exp(x) - exp(-x)) / (exp(x) + exp(-x)), evaluated as written.

Exact enough for moderate x, but for |x| > 88.7 one of the two exponentials overflows fp32 to inf and the
quotient becomes inf / inf = NaN where tanh is +-1.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    ep = tl.exp(x)
    em = tl.exp(-x)
    tl.store(y_ptr + offsets, ((ep - em) / (ep + em)).to(y_ptr.dtype.element_ty), mask=mask)


def tanh(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _tanh_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
    return out
