"""An honest tril as a third party writes it: one lane per element of a contiguous copy, keep where j - i <= diagonal.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _tril_kernel(x_ptr, y_ptr, n, R, C, diagonal, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    j = offs % C
    i = (offs // C) % R
    keep = (j - i) <= diagonal
    x = tl.load(x_ptr + offs, mask=mask & keep, other=0)
    tl.store(y_ptr + offs, x, mask=mask)


def tril(input, diagonal=0):
    x = input.contiguous()
    R, C = input.shape[-2], input.shape[-1]
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _tril_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, R, C, int(diagonal), BLOCK_SIZE=BLOCK_SIZE)
    return y
