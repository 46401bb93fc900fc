"""Treats the input as a flat contiguous buffer whatever its strides.

The kernel itself is right, and every contiguous workload passes. But it reads `numel` consecutive elements from
the input's data pointer and writes a fresh row-major output: a transposed input comes back transposed, and a
strided slice reads the gaps between its elements instead of the elements themselves. The misplaced values
include +inf results, which land where the reference is finite (status NONFINITE).
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _exp_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    tl.store(y_ptr + offsets, tl.exp(x).to(y_ptr.dtype.element_ty), mask=mask)


def exp(input):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = input.numel()
    _exp_kernel[(triton.cdiv(n, 1024),)](input, out, n, BLOCK=1024)
    return out
