"""Walks the input's memory linearly but writes a fresh contiguous (row-major) output.

Correct for contiguous inputs. For a transposed view the i-th element of memory is not the i-th element in
row-major order, so values land in the wrong places; for a strided view the gaps are read as data.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _elu_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.where(x > 0, x, alpha * (tl.exp(tl.minimum(x, 0.0)) - 1.0))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def elu(input, alpha=1.0):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = input.numel()
    _elu_kernel[(triton.cdiv(n, 4096),)](input, out, n, float(alpha), BLOCK=4096, num_warps=8)
    return out
