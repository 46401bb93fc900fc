"""Box-Muller with the Philox offsets of neighbouring pairs overlapping: pair j draws u1 at j and u2 at j + 1.

The two uniforms of pair j should come from offsets no other pair uses (2j and 2j + 1, or j and j + n). Here the
offsets are the pair index and the pair index plus one, so the uniform that sets pair j's angle is the one that
sets pair j + 1's radius: r_{j+1}^2 = -2 ln(1 - theta_j / 2 pi). Every sample is still exactly N(mean, std^2) on
its own (mean, variance and distribution are right), and the sign of each sample is independent of its
neighbours, so the samples are uncorrelated; but they are not independent, as the definition requires: the
angle of one pair decides the magnitude of the next.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _box_muller(out_ptr, n, mean, std, seed, BLOCK: tl.constexpr):
    j = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    even = 2 * j
    u1 = tl.rand(seed, j)
    u2 = tl.rand(seed, j + 1)
    r = tl.sqrt(-2.0 * 0.6931471805599453 * tl.log2(1.0 - u1))
    theta = 6.283185307179586 * u2
    z0 = r * tl.cos(theta)
    z1 = r * tl.sin(theta)
    tl.store(out_ptr + even, (mean + std * z0).to(out_ptr.dtype.element_ty), mask=even < n)
    tl.store(out_ptr + even + 1, (mean + std * z1).to(out_ptr.dtype.element_ty), mask=even + 1 < n)


def normal_like(input, mean=0.0, std=1.0, seed=0):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n > 0:
        BLOCK = 1024
        pairs = (n + 1) // 2
        _box_muller[(triton.cdiv(pairs, BLOCK),)](out, n, float(mean), float(std), seed, BLOCK=BLOCK)
    return out
