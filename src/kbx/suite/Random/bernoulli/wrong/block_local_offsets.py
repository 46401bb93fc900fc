"""Bernoulli sampling whose Philox offsets are local to the block, so every block reuses the same uniforms.

`tl.rand(seed, tl.arange(0, BLOCK))` instead of `tl.rand(seed, block_start + tl.arange(0, BLOCK))`: element i
and element i + 1024 compare the same uniform with their own probabilities. Every element on its own is
Bernoulli(p_i), so counts per probability look right; the draws are correlated (positively: both are 1 when the
shared uniform is below both probabilities), which only a test of independence between elements sees.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(p_ptr, out_ptr, n, seed, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + lanes
    mask = offsets < n
    p = tl.load(p_ptr + offsets, mask=mask).to(tl.float32)
    u = tl.rand(seed, lanes)  # bug: the same counters in every block
    tl.store(out_ptr + offsets, (u < p).to(out_ptr.dtype.element_ty), mask=mask)


def bernoulli(input, seed=0):
    p = input.contiguous()
    out = torch.empty_like(p)
    n = p.numel()
    _kernel[(triton.cdiv(n, 1024),)](p, out, n, seed, BLOCK=1024)
    return out.view(input.shape)
