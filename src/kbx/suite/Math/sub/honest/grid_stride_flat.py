"""An honest sub, `input - alpha * other` in fp32, in a grid-stride loop over contiguous broadcast copies.

The operands go through `torch.broadcast_tensors` and `.contiguous()`; a fixed number of programs loops over the
blocks of the flat output with int64 offsets, computes `a - alpha * b` in fp32 and rounds once to the dtype. A
Python-number `other` is an fp32 scalar argument. The solution reads strided operands in place, one program per
tile.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sub_loop(a_ptr, b_ptr, out_ptr, b_scalar, alpha, n, n_blocks, B_SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    for block in range(tl.program_id(0), n_blocks, tl.num_programs(0)):
        offs = tl.cast(block, tl.int64) * BLOCK + lanes
        mask = offs < n
        a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        if B_SCALAR:
            y = a - alpha * b_scalar
        else:
            b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            y = a - alpha * b
        tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def sub(input, other, alpha=1):
    b_scalar = not isinstance(other, torch.Tensor)
    if b_scalar:
        a, b = input.contiguous(), None
    else:
        a, b = (t.contiguous() for t in torch.broadcast_tensors(input, other))
    out = torch.empty(a.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    BLOCK = 2048
    n_blocks = triton.cdiv(n, BLOCK)
    _sub_loop[(min(n_blocks, 1024),)](a, a if b_scalar else b, out, float(other) if b_scalar else 0.0,
                                      float(alpha), n, n_blocks, B_SCALAR=b_scalar, BLOCK=BLOCK, num_warps=8)
    return out
