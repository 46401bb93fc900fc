"""An honest addcdiv, `input + value * (tensor1 / tensor2)` in fp32, reading broadcast operands through strides.

The three tensors are `expand`ed to the output shape (stride 0 where they broadcast, no copy) and seen as up to
three dims; program (r, c) takes output row r of the d0 * d1 rows and a block of its columns. The quotient is
Triton's ordinary `/` (on a GPU within 2 ulps, not correctly rounded), scaled by `value` and added in fp32, then
rounded once. The solution merges dims and uses one flat grid.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _addcdiv_rows(x_ptr, t1_ptr, t2_ptr, out_ptr, value, d1, d2, sx0, sx1, sx2, sa0, sa1, sa2, sb0, sb1, sb2,
                  BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = (tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)
    mask = cols < d2
    i0 = row // d1
    i1 = row % d1
    x = tl.load(x_ptr + i0 * sx0 + i1 * sx1 + cols * sx2, mask=mask, other=0.0).to(tl.float32)
    t1 = tl.load(t1_ptr + i0 * sa0 + i1 * sa1 + cols * sa2, mask=mask, other=0.0).to(tl.float32)
    t2 = tl.load(t2_ptr + i0 * sb0 + i1 * sb1 + cols * sb2, mask=mask, other=1.0).to(tl.float32)
    y = x + value * (t1 / t2)
    tl.store(out_ptr + row * d2 + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def addcdiv(input, tensor1, tensor2, value=1):
    shape = torch.broadcast_shapes(input.shape, tensor1.shape, tensor2.shape)
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    if out.numel() == 0:
        return out
    ops = [t.expand(shape) for t in (input, tensor1, tensor2)]
    if len(shape) > 3:
        ops = [t.contiguous().view(-1) for t in ops]
    dims = [1] * (3 - ops[0].dim()) + list(ops[0].shape)
    strides = [s for t in ops for s in [0] * (3 - t.dim()) + list(t.stride())]
    BLOCK = 512
    grid = (dims[0] * dims[1], triton.cdiv(dims[2], BLOCK))
    _addcdiv_rows[grid](*ops, out, float(value), dims[1], dims[2], *strides, BLOCK=BLOCK)
    return out
