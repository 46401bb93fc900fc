"""An honest nll_loss as a third party writes it: classes moved last, block fp32 sums of -w*x[t] and of w, sum/sum.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _nll_kernel(x_ptr, t_ptr, w_ptr, out_ptr, lsum_ptr, wsum_ptr, M, C, ignore_index,
                HAS_WEIGHT: tl.constexpr, REDUCE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = rows < M
    t = tl.load(t_ptr + rows, mask=mask, other=0)
    valid = mask & (t != ignore_index)
    t_safe = tl.where(valid, t, 0)
    if HAS_WEIGHT:
        w = tl.load(w_ptr + t_safe, mask=valid, other=0.0).to(tl.float32)
    else:
        w = tl.where(valid, 1.0, 0.0)
    x = tl.load(x_ptr + rows * C + t_safe, mask=valid, other=0.0).to(tl.float32)
    l = tl.where(valid, -w * x, 0.0)
    if REDUCE:
        tl.store(lsum_ptr + pid, tl.sum(l, axis=0))
        tl.store(wsum_ptr + pid, tl.sum(w, axis=0))
    else:
        tl.store(out_ptr + rows, l.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _nll_finish_kernel(lsum_ptr, wsum_ptr, out_ptr, n_partials, MEAN: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    acc_l = tl.zeros([BLOCK_SIZE], tl.float32)
    acc_w = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc_l += tl.load(lsum_ptr + offs, mask=offs < n_partials, other=0.0)
        acc_w += tl.load(wsum_ptr + offs, mask=offs < n_partials, other=0.0)
    total = tl.sum(acc_l, axis=0)
    if MEAN:
        total = total / tl.sum(acc_w, axis=0)
    tl.store(out_ptr, total.to(out_ptr.dtype.element_ty))


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    if input.dim() == 1:
        x = input.contiguous().view(1, -1)
    else:
        x = input.movedim(1, -1).contiguous()
    C = x.shape[-1]
    x = x.view(-1, C)
    t = target.contiguous().view(-1)
    M = t.numel()
    BLOCK_SIZE = 1024
    n_blocks = max(triton.cdiv(M, BLOCK_SIZE), 1)
    w = weight.contiguous() if weight is not None else x
    if reduction == "none":
        out = torch.empty(target.shape, dtype=input.dtype, device=input.device)
        if M > 0:
            _nll_kernel[(n_blocks,)](x, t, w, out, out, out, M, C, int(ignore_index), HAS_WEIGHT=weight is not None,
                                     REDUCE=False, BLOCK_SIZE=BLOCK_SIZE)
        return out
    lsum = torch.zeros(n_blocks, dtype=torch.float32, device=input.device)
    wsum = torch.zeros(n_blocks, dtype=torch.float32, device=input.device)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    if M > 0:
        _nll_kernel[(n_blocks,)](x, t, w, out, lsum, wsum, M, C, int(ignore_index), HAS_WEIGHT=weight is not None,
                                 REDUCE=True, BLOCK_SIZE=BLOCK_SIZE)
    _nll_finish_kernel[(1,)](lsum, wsum, out, n_blocks, MEAN=reduction == "mean", BLOCK_SIZE=1024)
    return out
