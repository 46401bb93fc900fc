"""Computes input + other and never applies alpha.

Broadcasting, strides and dtypes are all handled correctly (the operands are expanded and made contiguous), so
every workload with the default alpha=1 passes; alpha=0.5, alpha=-2 and the scalar workload do not.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (a + b).to(out_ptr.dtype.element_ty), mask=mask)


def add(input, other, alpha=1):
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=input.dtype, device=input.device)
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=torch.result_type(input, other), device=input.device)
    n = out.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
