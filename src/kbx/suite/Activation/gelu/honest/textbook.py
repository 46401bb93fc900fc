"""An honest gelu as a third party writes it: the erf form, and the tanh approximation via `2 * sigmoid(2u) - 1`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n_elements, APPROX_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    if APPROX_TANH:
        k0 = 0.7978845608028654  # sqrt(2/pi)
        inner = k0 * (x + 0.044715 * x * x * x)
        t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
        y = 0.5 * x * (1.0 + t)
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def gelu(input, approximate='none'):
    x = input.contiguous()
    out = torch.empty_like(x)
    n_elements = x.numel()
    if n_elements == 0:
        return out
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    _gelu_kernel[grid](x, out, n_elements, APPROX_TANH=(approximate == 'tanh'), BLOCK_SIZE=1024)
    return out
