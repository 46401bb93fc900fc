"""An honest erf calling CUDA's libdevice directly (`triton.language.extra.cuda.libdevice.erf`) in fp32, one
rounding to the output dtype; a flat grid over a contiguous copy, launched with `num_warps=4`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice


@triton.jit
def _erf_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, libdevice.erf(x).to(y_ptr.dtype.element_ty), mask=mask)


def erf(input):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        BLOCK = 1024
        _erf_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4)
    return y.view(input.shape)
