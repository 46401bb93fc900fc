"""An honest normal_like with the Box-Muller transform of two Philox uniforms per pair of output elements.

Pair j covers output elements 2j and 2j + 1. It draws u1 = tl.rand(seed, 2j) and u2 = tl.rand(seed, 2j + 1)
(64-bit offsets, so the stream depends only on the logical index), sets r = sqrt(-2 ln(1 - u1)) (1 - u1 lies in
(0, 1], so the logarithm is finite; ln via log2 times ln 2) and theta = 2 pi u2, and writes mean + std r cos theta
at 2j and mean + std r sin theta at 2j + 1, rounded once to the dtype, into a fresh contiguous tensor of the
input's shape. The suite's kernel instead calls `tl.randn4x` and writes four quarter-blocks.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _box_muller(out_ptr, n, mean, std, seed, BLOCK: tl.constexpr):
    j = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    even = 2 * j
    u1 = tl.rand(seed, even)
    u2 = tl.rand(seed, even + 1)
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
