"""Broadcasts by wrapping each operand's flat index: other[i % other.numel()].

NaN handling is right, and so is every workload where `other`'s shape is a suffix of the output's (equal shapes,
a row vector, a 0-d tensor). A column broadcast (M, 1), a middle-dim broadcast or an outer maximum reads the wrong
elements: element (i, j) must use other[i, 0], but (i * N + j) % M walks down the column.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _maximum_kernel(a_ptr, b_ptr, out_ptr, n, n_a, n_b, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs % n_a, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs % n_b, mask=mask).to(tl.float32)
    y = tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def maximum(input, other):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a, b = input.contiguous(), other.contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _maximum_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, a.numel(), b.numel(), BLOCK=1024)
    return out
