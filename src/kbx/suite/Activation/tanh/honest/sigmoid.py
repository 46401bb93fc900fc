"""An honest tanh as a third party writes it: `2*sigmoid(2x)-1`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _tanh_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = 2.0 * tl.sigmoid(2.0 * x) - 1.0
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def tanh(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n_elements = x.numel()
    if n_elements == 0:
        return out
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    _tanh_kernel[grid](x, out, n_elements, BLOCK_SIZE=1024)
    return out
