"""Computes target * log(target) literally, which is 0 * -inf = NaN where the target is exactly 0.

The limit of t * log(t) as t -> 0 is 0 (PyTorch uses xlogy), and zero-probability classes are common (about 10%
of the targets here). One NaN term makes the sum NaN, and 'none' outputs NaN at those positions.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _kl_kernel(x_ptr, y_ptr, out_ptr, n, LOG_TARGET: tl.constexpr, REDUCE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    if LOG_TARGET:
        d = tl.exp(y) * (y - x)
    else:
        d = y * (tl.log(y) - x)  # the mistake: no special case for y = 0
    d = tl.where(mask, d, 0.0)  # masked lanes (y = 1, a safe log) add nothing
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


def kl_div(input, target, reduction="mean", log_target=False):
    x, y = input.contiguous(), target.contiguous()
    n, BLOCK = x.numel(), 1024
    grid = (triton.cdiv(n, BLOCK),)
    if reduction == "none":
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        _kl_kernel[grid](x, y, out, n, LOG_TARGET=log_target, REDUCE=False, BLOCK=BLOCK)
        return out
    partials = torch.empty(grid[0], dtype=torch.float32, device=x.device)
    _kl_kernel[grid](x, y, partials, n, LOG_TARGET=log_target, REDUCE=True, BLOCK=BLOCK)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    if reduction == "mean":
        scale = 1.0 / n
    else:
        scale = 1.0 / x.shape[0] if reduction == "batchmean" else 1.0
    _finish_kernel[(1,)](partials, out, grid[0], scale, BLOCK=1024)
    return out
