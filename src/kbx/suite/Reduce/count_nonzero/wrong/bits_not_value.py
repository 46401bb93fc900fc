"""Tests the raw bit pattern for zero (the input reinterpreted as integers of the same width) instead of the value.

A shortcut to avoid float compares: right for +0.0, but -0.0 has its sign bit set (0x80000000 in fp32, 0x8000 in
fp16) and is counted as non-zero. -0.0 compares equal to 0, and the inputs hold many negative zeros.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

_SAME_WIDTH_INT = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@triton.jit
def _row_count_kernel(x_ptr, out_ptr, R, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, R, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        bits = tl.load(x_ptr + row * R + cols, mask=cols < R, other=0)
        acc += (bits != 0).to(tl.int32)
    tl.store(out_ptr + row, tl.sum(acc.to(tl.int64), axis=0))


def count_nonzero(input, dim=None):
    nd = input.dim()
    if dim is None:
        reduced = list(range(nd))
    else:
        reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in reduced]
    R = math.prod(input.shape[d] for d in reduced)
    x = input.permute(kept + reduced).contiguous()
    bits = x.view(_SAME_WIDTH_INT[x.element_size()])  # the mistake: compares bits, not values
    out = torch.empty([input.shape[d] for d in kept], dtype=torch.int64, device=input.device)
    _row_count_kernel[(max(out.numel(), 1),)](bits, out, R, BLOCK=min(triton.next_power_of_2(R), 1024))
    return out
