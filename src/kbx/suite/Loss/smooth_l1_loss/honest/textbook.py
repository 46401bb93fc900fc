"""An honest smooth_l1_loss as a third party writes it: fp32 elementwise branch; 'sum'/'mean' by two-stage partials.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _smooth_l1_kernel(x_ptr, t_ptr, out_ptr, partial_ptr, n, beta, REDUCE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = tl.abs(x - t)
    safe_beta = tl.where(beta > 0, beta, 1.0)
    l = tl.where(z < beta, 0.5 * z * z / safe_beta, z - 0.5 * beta)
    if REDUCE:
        tl.store(partial_ptr + pid, tl.sum(tl.where(mask, l, 0.0), axis=0))
    else:
        tl.store(out_ptr + offs, l.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _finish_kernel(partial_ptr, out_ptr, n_partials, divisor, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(partial_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / divisor).to(out_ptr.dtype.element_ty))


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    x = input.contiguous()
    t = target.contiguous()
    n = x.numel()
    BLOCK_SIZE = 1024
    n_blocks = triton.cdiv(n, BLOCK_SIZE)
    if reduction == "none":
        out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
        if n > 0:
            _smooth_l1_kernel[(n_blocks,)](x, t, out, out, n, float(beta), REDUCE=False, BLOCK_SIZE=BLOCK_SIZE)
        return out
    partials = torch.empty(max(n_blocks, 1), dtype=torch.float32, device=input.device)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    if n > 0:
        _smooth_l1_kernel[(n_blocks,)](x, t, out, partials, n, float(beta), REDUCE=True, BLOCK_SIZE=BLOCK_SIZE)
    divisor = float(n) if reduction == "mean" else 1.0
    _finish_kernel[(1,)](partials, out, n_blocks, divisor, BLOCK_SIZE=1024)
    return out
