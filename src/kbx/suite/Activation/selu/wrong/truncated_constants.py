"""Uses the constants as often quoted, alpha = 1.67 and scale = 1.05, instead of their full values.

The relative error is about 7e-4 on the positive side and 2.6e-3 on the negative side: invisible in a plot,
but far outside fp32's tolerance of 1e-5.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _selu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = 1.05 * tl.where(x > 0, x, 1.67 * (tl.exp(tl.minimum(x, 0.0)) - 1.0))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def selu(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _selu_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
    return out
