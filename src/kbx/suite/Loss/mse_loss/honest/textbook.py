"""An honest mse_loss as a third party writes it: per-block partial sums and a finishing kernel.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mse_kernel(a_ptr, b_ptr, out_ptr, partial_ptr, n, REDUCE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)  # 64-bit offsets: the bench passes 2^31 elements
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = a - b
    sq = d * d
    if REDUCE:
        tl.store(partial_ptr + pid, tl.sum(tl.where(mask, sq, 0.0), axis=0))
    else:
        tl.store(out_ptr + offs, sq.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _finish_kernel(p_ptr, out_ptr, n_partials, divisor, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        idx = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(p_ptr + idx, mask=idx < n_partials, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / divisor).to(out_ptr.dtype.element_ty))


def mse_loss(input, target, reduction='mean'):
    a = input.contiguous()
    b = target.contiguous()
    n = a.numel()
    BLOCK_SIZE = 1024
    n_blocks = triton.cdiv(n, BLOCK_SIZE)
    if reduction == 'none':
        out = torch.empty_like(a)
        _mse_kernel[(n_blocks,)](a, b, out, out, n, REDUCE=False, BLOCK_SIZE=BLOCK_SIZE)
        return out
    partials = torch.empty(n_blocks, dtype=torch.float32, device=a.device)
    _mse_kernel[(n_blocks,)](a, b, partials, partials, n, REDUCE=True, BLOCK_SIZE=BLOCK_SIZE)
    out = torch.empty((), dtype=input.dtype, device=a.device)
    divisor = float(n) if reduction == 'mean' else 1.0
    _finish_kernel[(1,)](partials, out, n_blocks, divisor, BLOCK_SIZE=1024)
    return out
