"""An honest huber_loss as a third party writes it: fp32 elementwise branch; 'sum'/'mean' by one fp32 atomic per block.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _huber_kernel(x_ptr, t_ptr, out_ptr, acc_ptr, n, delta, scale, REDUCE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = tl.abs(x - t)
    l = tl.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    if REDUCE:
        tl.atomic_add(acc_ptr, tl.sum(tl.where(mask, l, 0.0), axis=0) * scale)
    else:
        tl.store(out_ptr + offs, l.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _cast_scalar_kernel(acc_ptr, out_ptr):
    tl.store(out_ptr, tl.load(acc_ptr).to(out_ptr.dtype.element_ty))


def huber_loss(input, target, reduction="mean", delta=1.0):
    x = input.contiguous()
    t = target.contiguous()
    n = x.numel()
    BLOCK_SIZE = 1024
    n_blocks = triton.cdiv(n, BLOCK_SIZE)
    if reduction == "none":
        out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
        if n > 0:
            _huber_kernel[(n_blocks,)](x, t, out, out, n, float(delta), 1.0, REDUCE=False, BLOCK_SIZE=BLOCK_SIZE)
        return out
    acc = torch.zeros((), dtype=torch.float32, device=input.device)
    scale = 1.0 / n if reduction == "mean" else 1.0
    if n > 0:
        _huber_kernel[(n_blocks,)](x, t, acc, acc, n, float(delta), scale, REDUCE=True, BLOCK_SIZE=BLOCK_SIZE)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    _cast_scalar_kernel[(1,)](acc, out)
    return out
