"""An honest rsqrt as a third party writes it: `1 / sqrt(x)`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rsqrt_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    y = 1.0 / tl.sqrt(x)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def rsqrt(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    _rsqrt_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
    return out
