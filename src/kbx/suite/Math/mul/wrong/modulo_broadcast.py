"""Broadcasts `other` by wrapping its flat index: other[i % other.numel()].

The shortcut is right whenever `other`'s shape is a suffix of the output shape (equal shapes, a row vector, a
0-d tensor), which is why it survives casual testing. It is wrong for a column broadcast (M, 1), a middle-dim
broadcast or an outer product: element (i, j) must read other[i, 0], but (i * N + j) % M walks down the column.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _mul_kernel(a_ptr, b_ptr, out_ptr, n, n_a, n_b, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs % n_a, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs % n_b, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (a * b).to(out_ptr.dtype.element_ty), mask=mask)


def mul(input, other):
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=torch.float32, device=input.device)
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a, b = input.contiguous(), other.contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _mul_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, a.numel(), b.numel(), BLOCK=1024)
    return out
