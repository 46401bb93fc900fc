"""An honest gather as a third party writes it: one lane per index element, 3-D strided addressing, dim replaced.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(x_ptr, idx_ptr, y_ptr, n, I1, I2, xs0, xs1, xs2, is0, is1, is2,
                   DIM: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    i2 = offs % I2
    i1 = (offs // I2) % I1
    i0 = offs // (I2 * I1)
    j = tl.load(idx_ptr + i0 * is0 + i1 * is1 + i2 * is2, mask=mask, other=0)
    if DIM == 0:
        i0 = j
    elif DIM == 1:
        i1 = j
    else:
        i2 = j
    v = tl.load(x_ptr + i0 * xs0 + i1 * xs1 + i2 * xs2, mask=mask)
    tl.store(y_ptr + offs, v, mask=mask)


def gather(input, dim, index):
    nd = input.dim()
    d = dim % nd
    pad = 3 - nd
    x = input.reshape((1,) * pad + tuple(input.shape)) if pad else input
    idx = index.reshape((1,) * pad + tuple(index.shape)) if pad else index
    y = torch.empty(index.shape, dtype=input.dtype, device=input.device)
    n = idx.numel()
    if n == 0:
        return y
    BLOCK_SIZE = 1024
    _gather_kernel[(triton.cdiv(n, BLOCK_SIZE),)](
        x, idx, y, n, idx.shape[1], idx.shape[2], x.stride(0), x.stride(1), x.stride(2),
        idx.stride(0), idx.stride(1), idx.stride(2), DIM=d + pad, BLOCK_SIZE=BLOCK_SIZE)
    return y
