"""An honest mul_add_relu as a third party writes it: channel = (offs // inner) % C, fp32 max(x * s + b, 0).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mul_add_relu_kernel(x_ptr, s_ptr, b_ptr, y_ptr, n, C, inner, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    c = (offs // inner) % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + c, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
    y = tl.maximum(x * s + b, 0.0)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def mul_add_relu(input, scale, shift):
    x = input.contiguous()
    C = input.shape[1]
    inner = 1
    for d in input.shape[2:]:
        inner *= d
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _mul_add_relu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, scale.contiguous(), shift.contiguous(), y, n, C, inner,
                                                            BLOCK_SIZE=BLOCK_SIZE)
    return y
