"""The index of each slice's minimum, found among its first 8192 elements only.

Each slice (the reduced dims moved last) is read as one tile of next_power_of_2(n) elements, capped at BLOCK_MAX =
8192, and the rest of a longer slice is never read: a fixed block that caps the row length, sized for the rows the
author tried. Right on every slice of up to 8192 elements, which is every workload but `check_late_trough`, whose
slices are 9001 long, with their unique minimum past element 8192.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

BLOCK_MAX = 8192  # BUG: elements past the first BLOCK_MAX of a slice are never read


@triton.jit
def _kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * n + r, mask=r < n, other=float("inf")).to(tl.float32)
    low = tl.min(v, axis=0)
    # The first index holding the minimum, as PyTorch defines ties.
    tl.store(out_ptr + row, tl.min(tl.where(v == low, r, n), axis=0).to(tl.int64))


def _rows(input, dims):
    """The input as a contiguous (rows, n) matrix with the reduced dims last, n, and the kept and reduced dims."""
    nd = input.dim()
    reduced = sorted({d % max(nd, 1) for d in dims}) if dims else list(range(nd))
    kept = [d for d in range(nd) if d not in reduced]
    n = math.prod(input.shape[d] for d in reduced)
    x = input.permute(kept + reduced).contiguous().view(-1, n)
    return x, n, kept, reduced


def _shape(input, kept, reduced, keepdim):
    return [1 if d in reduced else s for d, s in enumerate(input.shape)] if keepdim else [input.shape[d] for d in kept]


def argmin(input, dim=None, keepdim=False):
    x, n, kept, reduced = _rows(input, [] if dim is None else [dim])
    out = torch.empty(x.shape[0], dtype=torch.int64, device=input.device)
    _kernel[(x.shape[0],)](x, out, n, BLOCK=min(triton.next_power_of_2(n), BLOCK_MAX))
    return out.view(_shape(input, kept, reduced, keepdim))
