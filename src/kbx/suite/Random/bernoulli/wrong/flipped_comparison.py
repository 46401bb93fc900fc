"""Bernoulli sampling that compares the wrong way round: 1 where u >= p instead of u < p.

Both read as "compare the uniform with p", but `u >= p` happens with probability 1 - p: the rates are mirrored
(p = 0 always gives 1, p = 1 never does), and only p = 1/2 comes out right.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(p_ptr, out_ptr, n, seed, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    p = tl.load(p_ptr + offsets, mask=mask).to(tl.float32)
    u = tl.rand(seed, offsets)
    tl.store(out_ptr + offsets, (u >= p).to(out_ptr.dtype.element_ty), mask=mask)  # bug: rate 1 - p


def bernoulli(input, seed=0):
    p = input.contiguous()
    out = torch.empty_like(p)
    n = p.numel()
    _kernel[(triton.cdiv(n, 4096),)](p, out, n, seed, BLOCK=4096)
    return out.view(input.shape)
