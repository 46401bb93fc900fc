"""An honest round as a third party writes it: ties-to-even by the 2^23 add-subtract trick on |y|, sign restored.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rint(y):
    # |y| + 2^23 has no fraction bits, so the FPU rounds the sum to even; larger |y| are already integers
    a = tl.abs(y)
    r = tl.where(a < 8388608.0, (a + 8388608.0) - 8388608.0, a)
    return tl.where(y < 0, -r, tl.where(y == 0, y, r))  # keep the sign of -0 and of negative results


@triton.jit
def _round_kernel(x_ptr, y_ptr, n, factor, DECIMALS_SIGN: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if DECIMALS_SIGN == 0:
        y = _rint(x)
    elif DECIMALS_SIGN > 0:
        y = _rint(x * factor) / factor
    else:
        y = _rint(x / factor) * factor
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
