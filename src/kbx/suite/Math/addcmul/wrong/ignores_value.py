"""Computes input + tensor1 * tensor2 and never applies `value`.

Broadcasting, strides and dtypes are all handled (operands are expanded and made contiguous), so every workload
with the default value=1 passes; value 0.5, -2 and 0.25 do not.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _addcmul_kernel(x_ptr, p_ptr, q_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    p = tl.load(p_ptr + offs, mask=mask).to(tl.float32)
    q = tl.load(q_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + p * q).to(out_ptr.dtype.element_ty), mask=mask)


def addcmul(input, tensor1, tensor2, value=1):
    shape = torch.broadcast_shapes(input.shape, tensor1.shape, tensor2.shape)
    x = input.expand(shape).contiguous()
    p = tensor1.expand(shape).contiguous()
    q = tensor2.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _addcmul_kernel[(triton.cdiv(n, 1024),)](x, p, q, out, n, BLOCK=1024)
    return out
