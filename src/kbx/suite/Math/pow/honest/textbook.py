"""An honest pow as a third party writes it: libdevice.pow(x, e) on fp32 values, rounded once.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _pow_kernel(x_ptr, y_ptr, n, exponent, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    e = tl.zeros_like(x) + exponent
    y = libdevice.pow(x, e)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def pow(input, exponent):
    x = input.contiguous()
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _pow_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, float(exponent), BLOCK_SIZE=BLOCK_SIZE)
    return y
