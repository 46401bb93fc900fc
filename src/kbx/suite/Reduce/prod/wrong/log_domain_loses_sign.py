"""Multiplies in the log domain: exp(sum(log|x|)), which loses the sign.

A common trick to avoid overflow and turn a product into a sum. Zeros still come out as 0 (log 0 = -inf, exp of
-inf = 0), and the magnitudes are right, but the sign of the product (the parity of the negative factors) is
dropped; half of the inputs' factors are negative.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _prod_kernel(x_ptr, out_ptr, n_red, n_inner, BLOCK_R: tl.constexpr):
    pid = tl.program_id(0)
    outer = pid // n_inner
    col = pid % n_inner
    base = x_ptr + outer.to(tl.int64) * n_red * n_inner + col
    acc = tl.zeros([BLOCK_R], tl.float32)
    for start in range(0, n_red, BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        v = tl.load(base + r.to(tl.int64) * n_inner, mask=r < n_red, other=1.0).to(tl.float32)
        acc += tl.log(tl.abs(v))
    tl.store(out_ptr + pid, tl.exp(tl.sum(acc, axis=0)).to(out_ptr.dtype.element_ty))


def prod(input, dim, keepdim=False):
    x = input.contiguous()
    shape = list(x.shape)
    d = dim % len(shape)
    n_red, outer, inner = shape[d], math.prod(shape[:d]), math.prod(shape[d + 1 :])
    out = torch.empty(outer * inner, dtype=x.dtype, device=x.device)
    BLOCK_R = min(triton.next_power_of_2(n_red), 256)
    _prod_kernel[(outer * inner,)](x, out, n_red, inner, BLOCK_R=BLOCK_R)
    return out.view(shape[:d] + ([1] if keepdim else []) + shape[d + 1 :])
