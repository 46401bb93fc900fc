"""Scales the wrong operand: computes alpha * input - other instead of input - alpha * other.

Broadcasting, strides and dtypes are handled correctly (operands are expanded and made contiguous), so every
workload with the default alpha=1 passes; the workloads with alpha of 0.5, -2 or 3 do not.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _sub_kernel(a_ptr, b_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (alpha * a - b).to(out_ptr.dtype.element_ty), mask=mask)


def sub(input, other, alpha=1):
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=torch.float32, device=input.device)
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _sub_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, float(alpha), BLOCK=1024)
    return out
