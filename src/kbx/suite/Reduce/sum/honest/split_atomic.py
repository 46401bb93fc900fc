"""An honest sum as a third party writes it: rows split in 4096-element chunks, fp32 chunk sums atomically added.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sum_chunks_kernel(x_ptr, acc_ptr, n_cols, CHUNK: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1).to(tl.int64)
    x_row = x_ptr + row * n_cols
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, CHUNK, BLOCK_SIZE):
        cols = chunk * CHUNK + start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.atomic_add(acc_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def _cast_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(y_ptr.dtype.element_ty), mask=mask)


def sum(input, dim, keepdim=False):
    nd = input.dim()
    dims = [dim] if isinstance(dim, int) else list(dim)
    dims = sorted(set(d % nd for d in dims))
    kept = [d for d in range(nd) if d not in dims]
    x = input.permute(kept + dims).contiguous()
    n_rows = 1
    for d in kept:
        n_rows *= input.shape[d]
    n_cols = 1
    for d in dims:
        n_cols *= input.shape[d]
    acc = torch.zeros(n_rows, dtype=torch.float32, device=input.device)
    CHUNK, BLOCK_SIZE = 4096, 1024
    if n_rows > 0 and n_cols > 0:
        _sum_chunks_kernel[(n_rows, triton.cdiv(n_cols, CHUNK))](x, acc, n_cols, CHUNK=CHUNK, BLOCK_SIZE=BLOCK_SIZE)
    if input.dtype == torch.float32:
        y = acc
    else:
        y = torch.empty(n_rows, dtype=input.dtype, device=input.device)
        if n_rows > 0:
            _cast_kernel[(triton.cdiv(n_rows, 1024),)](acc, y, n_rows, BLOCK_SIZE=1024)
    if keepdim:
        shape = [1 if d in dims else input.shape[d] for d in range(nd)]
    else:
        shape = [input.shape[d] for d in kept]
    return y.view(shape)
