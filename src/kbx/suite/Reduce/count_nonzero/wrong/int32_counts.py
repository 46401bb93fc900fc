"""Returns the counts as int32 (what the kernel's lane counters hold) instead of PyTorch's int64.

The values are right, but torch.count_nonzero always returns int64, and code downstream (indexing, comparisons
with other counts) depends on that dtype.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_DTYPE"

@triton.jit
def _row_count_kernel(x_ptr, out_ptr, R, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, R, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * R + cols, mask=cols < R, other=0)
        acc += (v != 0).to(tl.int32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def count_nonzero(input, dim=None):
    nd = input.dim()
    if dim is None:
        reduced = list(range(nd))
    else:
        reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in reduced]
    R = math.prod(input.shape[d] for d in reduced)
    x = input.permute(kept + reduced).contiguous()
    out = torch.empty([input.shape[d] for d in kept], dtype=torch.int32, device=input.device)  # the mistake
    _row_count_kernel[(max(out.numel(), 1),)](x, out, R, BLOCK=min(triton.next_power_of_2(R), 1024))
    return out
