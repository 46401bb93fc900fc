"""Computes sqrt(x * x + y * y) directly, in fp32.

Exact enough for ordinary values, but the squares overflow fp32 as soon as a magnitude passes about 1.8e19 (bf16
has the same range), giving inf where hypot is a perfectly representable number, e.g. hypot(3e30, 4e30) = 5e30.
(They also underflow to zero below 1e-23, though that error hides under the absolute tolerance.)
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _hypot_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.sqrt_rn(x * x + y * y).to(out_ptr.dtype.element_ty), mask=mask)


def hypot(input, other):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _hypot_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
