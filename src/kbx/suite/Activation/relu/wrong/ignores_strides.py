"""Indexes the input as if it were contiguous, ignoring its strides.

The kernel walks `input`'s storage linearly but writes a fresh contiguous output. For a transposed or strided
view the i-th element of storage is not the i-th element in row-major order, so values land in the wrong
places (and for a strided view, padding between elements is read as data). Contiguous inputs pass.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.where(x < 0, 0.0, x).to(y_ptr.dtype.element_ty), mask=mask)


def relu(input):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = input.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](input, out, n, BLOCK=1024)
    return out
