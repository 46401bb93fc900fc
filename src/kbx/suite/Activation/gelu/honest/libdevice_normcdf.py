"""An honest gelu through libdevice: the exact form as x * Phi(x) with libdevice's `normcdf` (the standard normal
CDF, which gelu is defined by), the tanh form with libdevice's `tanh`; fp32 inside, one rounding; a contiguous
flat copy, grid as a lambda of BLOCK.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, APPROX_TANH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if APPROX_TANH:
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = 0.5 * x * (1.0 + libdevice.tanh(u))
    else:
        y = x * libdevice.normcdf(x)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def gelu(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        _gelu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n, APPROX_TANH=approximate == "tanh",
                                                                    BLOCK=1024)
    return y.view(input.shape)
