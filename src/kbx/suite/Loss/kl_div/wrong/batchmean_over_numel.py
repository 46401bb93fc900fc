"""reduction='batchmean' divides the sum by the element count N, like 'mean', instead of by input.size(0).

'batchmean' is the KL divergence per sample (sum over the classes, mean over the batch); dividing by N as well
divides by the class count too, the very mistake 'batchmean' exists to avoid. The result is C times too small.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kl_kernel(x_ptr, y_ptr, out_ptr, n, LOG_TARGET: tl.constexpr, REDUCE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if LOG_TARGET:
        d = tl.exp(y) * (y - x)
    else:
        d = tl.where(y > 0.0, y * (tl.log(tl.where(y > 0.0, y, 1.0)) - x), 0.0)
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
    scale = 1.0 / n if reduction in ("mean", "batchmean") else 1.0  # the mistake: batchmean is not mean
    _finish_kernel[(1,)](partials, out, grid[0], scale, BLOCK=1024)
    return out
