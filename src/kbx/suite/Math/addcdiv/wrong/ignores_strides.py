"""Indexes every operand as if it were contiguous in the output shape: flat index i reads element i of storage.

Broadcast operands are expanded and copied, but an operand that already has the output shape is passed straight
to the kernel. For a transposed or strided operand of the full shape the flat offsets walk memory in the wrong
order (or over the gaps of a strided view), so the non-contiguous workloads read the wrong elements.
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
    tl.store(out_ptr + offs, (x + value * (p / q)).to(out_ptr.dtype.element_ty), mask=mask)


def addcdiv(input, tensor1, tensor2, value=1):
    shape = torch.broadcast_shapes(input.shape, tensor1.shape, tensor2.shape)
    x, p, q = (t if t.shape == shape else t.expand(shape).contiguous() for t in (input, tensor1, tensor2))
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _addcdiv_kernel[(triton.cdiv(n, 1024),)](x, p, q, out, float(value), n, BLOCK=1024)
    return out
