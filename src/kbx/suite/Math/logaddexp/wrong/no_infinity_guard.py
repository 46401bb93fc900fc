"""Uses the stable form max(a, b) + log(1 + exp(-|a - b|)) but not the case of two equal infinities.

Right for every finite pair and for an infinity against a finite value. Where both arguments are -inf (two zero
probabilities, common in masked log-space code) or both +inf, a - b is inf - inf = NaN and the NaN reaches the
output, where logaddexp is -inf (or inf).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _logaddexp_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    m = tl.maximum(a, b)
    y = m + tl.log(1.0 + tl.exp(-tl.abs(a - b)))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def logaddexp(input, other):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _logaddexp_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
