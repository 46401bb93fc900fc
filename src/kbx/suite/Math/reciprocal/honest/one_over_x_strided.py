"""An honest reciprocal written as `1.0 / x` in fp32, reading the input through its strides on a 2-D grid.

The division is Triton's ordinary `/` (on a GPU a full-range division within 2 ulps, not the correctly rounded one),
computed in fp32 and rounded once to the dtype; +-0, +-inf and NaN follow IEEE. The (up to 3-D) input is read
at its strided addresses by (row, column-block) programs and the output written contiguous. The solution uses
`tl.div_rn` on a flat walk of dense memory.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _reciprocal_rows(x_ptr, y_ptr, d1, d2, s0, s1, s2, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < d2
    base = (row // d1) * s0 + (row % d1) * s1
    x = tl.load(x_ptr + base + cols.to(tl.int64) * s2, mask=mask, other=1.0).to(tl.float32)
    y = 1.0 / x
    tl.store(y_ptr + row * d2 + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def reciprocal(input):
    x = input if input.dim() <= 3 else input.reshape(-1)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel() == 0:
        return out.view(input.shape)
    shape = [1] * (3 - x.dim()) + list(x.shape)
    strides = [0] * (3 - x.dim()) + list(x.stride())
    BLOCK = 256
    grid = (shape[0] * shape[1], triton.cdiv(shape[2], BLOCK))
    _reciprocal_rows[grid](x, out, shape[1], shape[2], strides[0], strides[1], strides[2], BLOCK=BLOCK,
                           num_warps=2)
    return out.view(input.shape)
