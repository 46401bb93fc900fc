"""An honest frac as x - trunc(x), with trunc done by a float -> int32 conversion guarded by the magnitude.

In fp32 every |x| >= 2^23 is an integer (its fractional part is 0), so only smaller magnitudes go through the
conversion to int32, which truncates toward zero and cannot overflow there; larger finite values give x - x = 0,
and inf and NaN give x - x = NaN, as x - trunc(x) does. fp16 is widened to fp32 (lossless) and the exact result
rounded back. The input is made contiguous and walked flat; the solution truncates with `tl.floor` of |x| instead.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _frac_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    small = tl.abs(x) < 8388608.0  # 2^23: false for inf and NaN too
    whole = tl.where(small, x, 0.0).to(tl.int32).to(tl.float32)
    y = tl.where(small, x - whole, x - x)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def frac(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = 1024
    _frac_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out
