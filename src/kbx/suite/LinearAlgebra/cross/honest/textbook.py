"""An honest cross as a third party writes it: inputs broadcast, dim moved last, one lane per vector, fp32 products.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cross_kernel(a_ptr, b_ptr, y_ptr, n_vec, BLOCK_SIZE: tl.constexpr):
    v = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = v < n_vec
    base = v * 3
    a0 = tl.load(a_ptr + base, mask=mask, other=0.0).to(tl.float32)
    a1 = tl.load(a_ptr + base + 1, mask=mask, other=0.0).to(tl.float32)
    a2 = tl.load(a_ptr + base + 2, mask=mask, other=0.0).to(tl.float32)
    b0 = tl.load(b_ptr + base, mask=mask, other=0.0).to(tl.float32)
    b1 = tl.load(b_ptr + base + 1, mask=mask, other=0.0).to(tl.float32)
    b2 = tl.load(b_ptr + base + 2, mask=mask, other=0.0).to(tl.float32)
    out_ty = y_ptr.dtype.element_ty
    tl.store(y_ptr + base, (a1 * b2 - a2 * b1).to(out_ty), mask=mask)
    tl.store(y_ptr + base + 1, (a2 * b0 - a0 * b2).to(out_ty), mask=mask)
    tl.store(y_ptr + base + 2, (a0 * b1 - a1 * b0).to(out_ty), mask=mask)


def cross(input, other, dim=-1):
    a, b = torch.broadcast_tensors(input, other)
    d = dim % a.dim()
    a2 = a.movedim(d, -1).contiguous()
    b2 = b.movedim(d, -1).contiguous()
    y = torch.empty_like(a2)
    n_vec = a2.numel() // 3
    if n_vec > 0:
        BLOCK_SIZE = 1024
        _cross_kernel[(triton.cdiv(n_vec, BLOCK_SIZE),)](a2, b2, y, n_vec, BLOCK_SIZE=BLOCK_SIZE)
    return y.movedim(-1, d)
