"""Zeroes the dropped elements first and divides everything by (1 - p) in the kernel.

    y = where(keep, x, 0) / (1 - p)

Right for every p < 1, but F.dropout accepts p = 1 (drop everything) and returns zeros there; this kernel
computes 0 / 0 = NaN for every element. It passes every workload but `check_p1` (p = 1, training), where the harness
finds NaN where the reference is 0.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _dropout_kernel(x_ptr, y_ptr, n, p, scale, seed, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.rand(seed, offs)
    keep = r >= p
    y = tl.where(keep, x, 0.0) / (1.0 - p)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def dropout(input, p=0.5, training=True, seed=0):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return y.view(input.shape)
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    if not training or p == 0:
        _copy_kernel[grid](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    else:
        scale = 0.0  # unused: the kernel divides by (1 - p) itself
        _dropout_kernel[grid](x, y, n, float(p), scale, int(seed), BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input.shape)
