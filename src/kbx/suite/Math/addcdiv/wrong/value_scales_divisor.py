"""Reads `value * tensor1 / tensor2` as tensor1 / (value * tensor2), scaling the divisor instead of the quotient.

Agrees with torch.addcdiv wherever value is 1 or -1, which includes the default; value 0.5, -2 and 0.25 give the
quotient scaled by 1 / value^2 too much. Broadcasting and strides are handled (operands expanded and copied).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _addcdiv_kernel(x_ptr, p_ptr, q_ptr, out_ptr, value, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    p = tl.load(p_ptr + offs, mask=mask).to(tl.float32)
    q = tl.load(q_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    tl.store(out_ptr + offs, (x + p / (value * q)).to(out_ptr.dtype.element_ty), mask=mask)


def addcdiv(input, tensor1, tensor2, value=1):
    shape = torch.broadcast_shapes(input.shape, tensor1.shape, tensor2.shape)
    x = input.expand(shape).contiguous()
    p = tensor1.expand(shape).contiguous()
    q = tensor2.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _addcdiv_kernel[(triton.cdiv(n, 1024),)](x, p, q, out, float(value), n, BLOCK=1024)
    return out
