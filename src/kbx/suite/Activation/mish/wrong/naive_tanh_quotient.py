"""Composes the definition literally: softplus as log(1 + exp(x)), then tanh from exponentials, because Triton
has no tanh: tanh(s) = (exp(2s) - 1) / (exp(2s) + 1).

Accurate enough for moderate x, but exp(2s) overflows fp32 for x > 44 (and exp(x) itself for x > 88.7), and
the quotient becomes inf / inf = NaN where mish(x) = x.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _mish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    s = tl.log(1.0 + tl.exp(x))
    e2s = tl.exp(2.0 * s)
    y = x * (e2s - 1.0) / (e2s + 1.0)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def mish(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _mish_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
    return out
