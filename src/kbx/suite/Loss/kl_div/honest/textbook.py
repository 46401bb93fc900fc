"""An honest kl_div as a third party writes it: `where(t > 0, t * (log t - x), 0)`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _kl_kernel(x_ptr, t_ptr, out_ptr, partial_ptr, n, LOG_TARGET: tl.constexpr, REDUCE: tl.constexpr,
               BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if LOG_TARGET:
        loss = tl.exp(t) * (t - x)
    else:
        loss = tl.where(t > 0, t * (tl.log(t) - x), 0.0)
    if REDUCE:
        tl.store(partial_ptr + pid, tl.sum(tl.where(mask, loss, 0.0), axis=0))
    else:
        tl.store(out_ptr + offs, loss.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _finish_kernel(p_ptr, out_ptr, n_partials, divisor, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        idx = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(p_ptr + idx, mask=idx < n_partials, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / divisor).to(out_ptr.dtype.element_ty))


def kl_div(input, target, reduction='mean', log_target=False):
    x = input.contiguous()
    t = target.contiguous()
    n = x.numel()
    BLOCK_SIZE = 1024
    n_blocks = triton.cdiv(n, BLOCK_SIZE)
    if reduction == 'none':
        out = torch.empty_like(x)
        _kl_kernel[(n_blocks,)](x, t, out, out, n, LOG_TARGET=log_target, REDUCE=False, BLOCK_SIZE=BLOCK_SIZE)
        return out
    partials = torch.empty(n_blocks, dtype=torch.float32, device=x.device)
    _kl_kernel[(n_blocks,)](x, t, partials, partials, n, LOG_TARGET=log_target, REDUCE=True, BLOCK_SIZE=BLOCK_SIZE)
    if reduction == 'mean':
        divisor = float(n)
    elif reduction == 'batchmean':
        divisor = float(x.shape[0])
    else:
        divisor = 1.0
    out = torch.empty((), dtype=input.dtype, device=x.device)
    _finish_kernel[(1,)](partials, out, n_blocks, divisor, BLOCK_SIZE=1024)
    return out
