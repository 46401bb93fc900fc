"""Uses <= for the left side and < for the right side: right=False returns the right insertion point.

The two comparisons are easy to mix up ("right" sounds like "stop at the first element >= x"). Wherever a query
equals sequence elements the left and right insertion points differ by the length of the run of equal
elements, so every tie comes out wrong on both sides; queries between elements are unaffected.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _searchsorted_kernel(
    seq_ptr, x_ptr, out_ptr, n, M, L, n_steps,
    BATCHED: tl.constexpr, RIGHT: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if BATCHED:
        row = (offs // M).to(tl.int64) * L  # query row r searches sequence row r
    else:
        row = tl.zeros([BLOCK], tl.int64)
    lo = tl.zeros([BLOCK], tl.int32)
    hi = tl.zeros([BLOCK], tl.int32) + L
    for _ in range(n_steps):
        active = lo < hi
        mid = (lo + hi) // 2
        s = tl.load(seq_ptr + row + mid, mask=mask & active, other=0.0).to(tl.float32)
        if RIGHT:
            go_right = s < x
        else:
            go_right = s <= x
        lo = tl.where(active & go_right, mid + 1, lo)
        hi = tl.where(active & ~go_right, mid, hi)
    tl.store(out_ptr + offs, lo.to(tl.int64), mask=mask)


def searchsorted(sorted_sequence, input, right=False):
    seq = sorted_sequence.contiguous()
    x = input.contiguous()
    L = seq.shape[-1]
    batched = seq.dim() > 1
    if batched:
        assert tuple(seq.shape[:-1]) == tuple(x.shape[:-1]), "leading dims of sequence and input must match"
    M = x.shape[-1] if x.dim() > 0 else 1
    out = torch.empty(x.shape, dtype=torch.int64, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    if L == 0:
        return out.zero_()
    assert n < 2**31 and L < 2**30, "more than 2^31 queries or 2^30 sequence elements (lo + hi is int32)"
    n_steps = math.ceil(math.log2(L + 1))
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _searchsorted_kernel[grid](
        seq, x, out, n, M, L, n_steps, BATCHED=batched, RIGHT=bool(right), BLOCK=BLOCK, num_warps=4,
    )
    return out
