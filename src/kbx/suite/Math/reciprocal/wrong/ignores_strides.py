"""Treats the input as a flat contiguous buffer whatever its strides.

The kernel itself is right, and every contiguous workload passes. But it reads `numel` consecutive elements from the
input's data pointer and writes a fresh row-major output: a transposed input comes back transposed, and a strided
slice reads the gaps between its elements instead of the elements themselves. The misplaced values include the +-inf
results of zero inputs, which land where the reference is finite (status NONFINITE).
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _reciprocal_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.div_rn(1.0, x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def reciprocal(input):
    x = input
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    _reciprocal_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
