"""Broadcasts every operand by wrapping its flat index: t[i % t.numel()].

Right whenever each operand's shape is a suffix of the output shape (equal shapes, a row vector, a 0-d tensor),
which is why it survives casual testing. A column (M, 1) operand, an outer product or a 3-D input with a
middle-dim factor reads the wrong elements: element (i, j) must use t[i, 0], but (i * N + j) % M walks down the
column.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _addcmul_kernel(x_ptr, p_ptr, q_ptr, out_ptr, value, n, n_x, n_p, n_q, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs % n_x, mask=mask).to(tl.float32)
    p = tl.load(p_ptr + offs % n_p, mask=mask).to(tl.float32)
    q = tl.load(q_ptr + offs % n_q, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + value * (p * q)).to(out_ptr.dtype.element_ty), mask=mask)


def addcmul(input, tensor1, tensor2, value=1):
    shape = torch.broadcast_shapes(input.shape, tensor1.shape, tensor2.shape)
    x, p, q = input.contiguous(), tensor1.contiguous(), tensor2.contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _addcmul_kernel[(triton.cdiv(n, 1024),)](x, p, q, out, float(value), n, x.numel(), p.numel(), q.numel(),
                                             BLOCK=1024)
    return out
