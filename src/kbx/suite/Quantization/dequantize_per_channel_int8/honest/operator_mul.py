"""An honest dequantize_per_channel_int8 as a third party writes it: as the plain one, inner by reduce(operator.mul).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import functools
import operator

import torch
import triton
import triton.language as tl


@triton.jit
def _dequant_kernel(q_ptr, s_ptr, z_ptr, y_ptr, n, C, inner, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    c = (offs // inner) % C
    q = tl.load(q_ptr + offs, mask=mask, other=0).to(tl.float32)
    zp = tl.load(z_ptr + c, mask=mask, other=0).to(tl.float32)
    s = tl.load(s_ptr + c, mask=mask, other=0.0).to(tl.float32)
    y = (q - zp) * s
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def dequantize_per_channel_int8(input, scales, zero_points, axis):
    axis = axis % input.dim()
    x = input.contiguous()
    C = input.shape[axis]
    inner = functools.reduce(operator.mul, input.shape[axis + 1:], 1)
    y = torch.empty(input.shape, dtype=scales.dtype, device=input.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _dequant_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, scales.contiguous(), zero_points.contiguous(), y, n, C,
                                                       inner, BLOCK_SIZE=BLOCK_SIZE)
    return y
