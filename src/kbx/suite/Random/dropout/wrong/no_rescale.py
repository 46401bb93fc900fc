"""Dropout that zeroes elements but forgets to scale the survivors by 1 / (1 - p).

The mask is right, but the kept values are the input itself, so the expected value of the output is (1 - p) x
instead of x: the train-time activations shrink and inference no longer matches training. Every kept element is
off by a factor 1 - p (0.5, 0.9 or 0.1 in the workloads), far beyond rounding.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    u = tl.rand(seed, offsets)
    y = tl.where(u >= p, x, 0.0)  # bug: no 1 / (1 - p)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def dropout(input, p=0.5, training=True, seed=0):
    if not training:
        return input
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _kernel[(triton.cdiv(n, 4096),)](x, out, n, p, seed, BLOCK=4096)
    return out.view(input.shape)
