"""An honest addcmul on contiguous broadcast copies: `input + value * tensor1 * tensor2` in fp32, walked flat.

The three tensors go through `torch.broadcast_tensors` and `.contiguous()` (a broadcast operand is materialised),
and one program handles each block of the flat output with int64 offsets; the expression is evaluated in fp32
left to right and rounded once to the dtype. The solution reads the operands through their strides instead.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _addcmul_flat(x_ptr, t1_ptr, t2_ptr, out_ptr, value, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t1 = tl.load(t1_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t2 = tl.load(t2_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x + value * t1 * t2
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def addcmul(input, tensor1, tensor2, value=1):
    x, t1, t2 = (t.contiguous() for t in torch.broadcast_tensors(input, tensor1, tensor2))
    out = torch.empty(x.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    BLOCK = 1024
    _addcmul_flat[(triton.cdiv(n, BLOCK),)](x, t1, t2, out, float(value), n, BLOCK=BLOCK)
    return out
