"""Dropout that keeps an element with probability p instead of 1 - p.

`u < p` reads naturally as "with probability p", but p is the probability of *dropping*. The scaling by
1 / (1 - p) is right, so at p = 0.5 the output is indistinguishable from a correct one; at p = 0.1 it keeps 10%
of the elements instead of 90%, and at p = 0 it drops everything.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, out_ptr, n, p, scale, seed, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    u = tl.rand(seed, offsets)
    y = tl.where(u < p, x * scale, 0.0)  # bug: keeps with probability p
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def dropout(input, p=0.5, training=True, seed=0):
    if not training:
        return input
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    _kernel[(triton.cdiv(n, 4096),)](x, out, n, p, scale, seed, BLOCK=4096)
    return out.view(input.shape)
