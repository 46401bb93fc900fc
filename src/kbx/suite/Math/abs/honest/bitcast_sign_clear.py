"""An honest abs that clears the sign bit on the integer view of the data: a bitwise AND on the raw bits.

The wrapper makes the input contiguous and views it (and the output) as the signed integer type of the same width
(int32 for fp32, int16 for fp16 and bf16); the kernel ANDs every element with the mask that keeps all bits but the
top one, so -0 becomes +0, -inf +inf, and a NaN stays a NaN. Nothing is converted or compared, where the solution
calls `tl.abs` on the floating-point values.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _clear_sign_bit(x_ptr, y_ptr, n, MAGNITUDE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bits = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(y_ptr + offs, bits & MAGNITUDE, mask=mask)


def abs(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    if x.element_size() == 4:
        int_dtype, magnitude = torch.int32, 0x7FFFFFFF
    else:
        int_dtype, magnitude = torch.int16, 0x7FFF
    BLOCK = 2048
    _clear_sign_bit[(triton.cdiv(n, BLOCK),)](x.view(int_dtype), out.view(int_dtype), n, MAGNITUDE=magnitude,
                                              BLOCK=BLOCK)
    return out
