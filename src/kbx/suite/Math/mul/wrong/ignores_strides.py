"""Indexes both operands as if they were contiguous in the output shape: flat index i reads element i of storage.

Broadcasting is handled by expanding and copying, but only when the shapes differ; an operand that already has
the output shape is passed straight to the kernel. For a transposed or strided operand of the full shape, the
flat offsets then walk memory in the wrong order (or skip over the padding of a strided view), so every
non-contiguous workload reads the wrong elements.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _mul_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (a * b).to(out_ptr.dtype.element_ty), mask=mask)


def mul(input, other):
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=torch.float32, device=input.device)
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input if input.shape == shape else input.expand(shape).contiguous()
    b = other if other.shape == shape else other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _mul_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
