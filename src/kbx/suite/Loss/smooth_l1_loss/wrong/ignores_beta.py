"""Ignores the beta argument and always uses the default beta = 1.

A kernel written for the default (beta baked into the arithmetic as 0.5 * z^2 and z - 0.5) and never wired up to
the parameter: right for beta = 1 only. The workloads also use beta = 0.5, 2 and 0.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _loss_kernel(x_ptr, y_ptr, out_ptr, n, REDUCE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = tl.abs(x - y)
    d = tl.where(z < 1.0, 0.5 * z * z, z - 0.5)  # the mistake: beta = 1 hard-coded
    if REDUCE:
        tl.store(out_ptr + tl.program_id(0), tl.sum(d, axis=0))
    else:
        tl.store(out_ptr + offs, d.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _finish_kernel(partial_ptr, out_ptr, n_partials, scale, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) * scale).to(out_ptr.dtype.element_ty))


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    x, y = input.contiguous(), target.contiguous()
    n, BLOCK = x.numel(), 1024
    grid = (triton.cdiv(n, BLOCK),)
    if reduction == "none":
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        _loss_kernel[grid](x, y, out, n, REDUCE=False, BLOCK=BLOCK)
        return out
    partials = torch.empty(grid[0], dtype=torch.float32, device=x.device)
    _loss_kernel[grid](x, y, partials, n, REDUCE=True, BLOCK=BLOCK)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    scale = 1.0 / n if reduction == "mean" else 1.0
    _finish_kernel[(1,)](partials, out, grid[0], scale, BLOCK=1024)
    return out
