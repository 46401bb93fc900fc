"""An honest expm1 as a third party writes it: Kahan's `(u - 1) * x / log(u)`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _expm1_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    # Kahan's trick: (u - 1) * x / log(u) cancels the rounding error of u = exp(x)
    u = tl.exp(x)
    um1 = u - 1.0
    y = tl.where(u == 1.0, x, tl.where(um1 == -1.0, -1.0, um1 * x / tl.log(u)))
    y = tl.where(x > 80.0, u - 1.0, y)  # u = inf / huge: keep exp's value
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def expm1(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n_elements = x.numel()
    if n_elements == 0:
        return out
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    _expm1_kernel[grid](x, out, n_elements, BLOCK_SIZE=1024)
    return out
