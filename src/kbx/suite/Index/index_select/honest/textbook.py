"""An honest index_select as a third party writes it: (outer, L, inner) view, one lane per output element.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _index_select_kernel(x_ptr, idx_ptr, y_ptr, n, L, n_idx, inner, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    i = offs % inner
    row = offs // inner  # int64: inner * n_idx, both int32 arguments, would overflow past 2^31 outputs
    j = row % n_idx
    o = row // n_idx
    src_row = tl.load(idx_ptr + j, mask=mask, other=0).to(tl.int64)
    v = tl.load(x_ptr + (o * L + src_row) * inner + i, mask=mask)
    tl.store(y_ptr + offs, v, mask=mask)


def index_select(input, dim, index):
    nd = input.dim()
    d = dim % nd if nd > 0 else 0
    x = input.contiguous()
    idx = index.contiguous()
    L = input.shape[d] if nd > 0 else 1
    inner = 1
    for s in input.shape[d + 1:]:
        inner *= s
    shape = list(input.shape)
    if nd > 0:
        shape[d] = idx.numel()
    y = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = y.numel()
    if n == 0:
        return y
    BLOCK_SIZE = 1024
    _index_select_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, idx, y, n, L, idx.numel(), inner, BLOCK_SIZE=BLOCK_SIZE)
    return y
