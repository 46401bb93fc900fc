"""Walks the input's memory linearly but writes a fresh contiguous (row-major) output.

Correct for contiguous inputs. For a transposed view the i-th element of memory is not the i-th element in
row-major order, so values land in the wrong places; for a strided view the gaps are read as data.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _hardtanh_kernel(x_ptr, y_ptr, n, min_val, max_val, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.minimum(tl.maximum(x, min_val), max_val)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = input.numel()
    _hardtanh_kernel[(triton.cdiv(n, 4096),)](input, out, n, float(min_val), float(max_val), BLOCK=4096,
                                              num_warps=8)
    return out
