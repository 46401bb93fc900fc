"""An honest index_add as a third party writes it: an fp32 copy of input, fp32 atomic adds of alpha * source.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _copy_to_f32_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float32), mask=mask)


@triton.jit
def _index_add_kernel(out_ptr, src_ptr, idx_ptr, alpha, n, L, n_idx, inner, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    i = offs % inner
    j = (offs // inner) % n_idx
    o = offs // (inner * n_idx)
    dst_row = tl.load(idx_ptr + j, mask=mask, other=0).to(tl.int64)
    v = tl.load(src_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.atomic_add(out_ptr + (o * L + dst_row) * inner + i, v * alpha, mask=mask)


@triton.jit
def _cast_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(y_ptr.dtype.element_ty), mask=mask)


def index_add(input, dim, index, source, alpha=1):
    nd = input.dim()
    d = dim % nd if nd > 0 else 0
    x = input.contiguous()
    src = source.contiguous()
    idx = index.contiguous()
    L = input.shape[d] if nd > 0 else 1
    inner = 1
    for s in input.shape[d + 1:]:
        inner *= s
    BLOCK_SIZE = 1024
    n_out = x.numel()
    acc = torch.empty(input.shape, dtype=torch.float32, device=input.device)
    if n_out > 0:
        _copy_to_f32_kernel[(triton.cdiv(n_out, BLOCK_SIZE),)](x, acc, n_out, BLOCK_SIZE=BLOCK_SIZE)
    n_src = src.numel()
    if n_src > 0:
        _index_add_kernel[(triton.cdiv(n_src, BLOCK_SIZE),)](
            acc, src, idx, float(alpha), n_src, L, idx.numel(), inner, BLOCK_SIZE=BLOCK_SIZE)
    if input.dtype == torch.float32:
        return acc
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if n_out > 0:
        _cast_kernel[(triton.cdiv(n_out, BLOCK_SIZE),)](acc, out, n_out, BLOCK_SIZE=BLOCK_SIZE)
    return out
