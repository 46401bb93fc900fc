"""An honest round as a third party writes it: libdevice.rint (ties to even) on x * 10^d or x / 10^-d in fp32.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _round_kernel(x_ptr, y_ptr, n, factor, DECIMALS_SIGN: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if DECIMALS_SIGN == 0:
        y = libdevice.rint(x)
    elif DECIMALS_SIGN > 0:
        y = libdevice.rint(x * factor) / factor
    else:
        y = libdevice.rint(x / factor) * factor
    tl.store(y_ptr + offs, y, mask=mask)


def round(input, decimals=0):
    x = input.contiguous()
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = x.numel()
    factor = float(10.0 ** abs(decimals))
    sign = 0 if decimals == 0 else (1 if decimals > 0 else -1)
    if n > 0:
        BLOCK_SIZE = 1024
        _round_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, factor, DECIMALS_SIGN=sign, BLOCK_SIZE=BLOCK_SIZE)
    return y
