"""Takes the absolute value after reducing: |sum(input - target)| instead of sum(|input - target|).

An algebra slip when fusing the reduction (the |.| moved out of the per-element step, where it belongs, onto the
accumulated total). 'none' is right; for 'sum'/'mean' the signed differences cancel and the result is far too
small.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _abs_diff_kernel(x_ptr, y_ptr, out_ptr, n, REDUCE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = x - y
    if REDUCE:
        tl.store(out_ptr + tl.program_id(0), tl.sum(d, axis=0))  # signed partial sums
    else:
        tl.store(out_ptr + offs, tl.abs(d).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _finish_kernel(partial_ptr, out_ptr, n_partials, scale, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(out_ptr, (tl.abs(tl.sum(acc, axis=0)) * scale).to(out_ptr.dtype.element_ty))


def l1_loss(input, target, reduction="mean"):
    x, y = input.contiguous(), target.contiguous()
    n, BLOCK = x.numel(), 1024
    grid = (triton.cdiv(n, BLOCK),)
    if reduction == "none":
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        _abs_diff_kernel[grid](x, y, out, n, REDUCE=False, BLOCK=BLOCK)
        return out
    partials = torch.empty(grid[0], dtype=torch.float32, device=x.device)
    _abs_diff_kernel[grid](x, y, partials, n, REDUCE=True, BLOCK=BLOCK)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    scale = 1.0 / n if reduction == "mean" else 1.0
    _finish_kernel[(1,)](partials, out, grid[0], scale, BLOCK=1024)
    return out
