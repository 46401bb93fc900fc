"""x^e as exp2(e * log2|x|) with the sign of odd integer powers restored, without the e = 0 special case.

Right for every exponent but 0: pow(x, 0) is 1 for every x, including 0, +-inf and NaN, while
exp2(0 * log2|x|) is exp2(0 * -inf) = NaN at x = 0, exp2(0 * inf) = NaN at x = +-inf, and NaN at NaN.
`check_zero_exponent` (exponent 0.0, about a tenth of the bases +-0, +-inf or NaN) catches it: NaN where the
reference is 1.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _pow_kernel(x_ptr, y_ptr, n, exponent, E_IS_INT: tl.constexpr, E_IS_ODD: tl.constexpr,
                BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    mag = tl.exp2(exponent * tl.log2(tl.abs(x)))
    if E_IS_INT:
        if E_IS_ODD:
            y = tl.where(x < 0, -mag, mag)
        else:
            y = mag
    else:
        y = tl.where(x < 0, float("nan"), mag)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def pow(input, exponent):
    e = float(exponent)
    is_int = e == int(e) if abs(e) < 2 ** 53 else True
    is_odd = is_int and abs(e) < 2 ** 53 and int(e) % 2 == 1
    x = input.contiguous()
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _pow_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, e, E_IS_INT=is_int, E_IS_ODD=is_odd,
                                                   BLOCK_SIZE=BLOCK_SIZE)
    return y
