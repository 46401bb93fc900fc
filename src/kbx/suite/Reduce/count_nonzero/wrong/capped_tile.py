"""The nonzero count of each slice from its first 8192 elements only (a whole-tensor count is right).

Each slice (the reduced dims moved last) is read as one tile of next_power_of_2(n) elements, capped at BLOCK_MAX =
8192, and the rest of a longer slice is never read: a fixed block that caps the row length, sized for the rows the
author tried. Right on every slice of up to 8192 elements, which is every workload but `check_long_rows`, whose
slices are 9001 long: nonzeros past element 8192 are not counted. The count over every dim has a loop of its own and
is right, as the reduction over all of a large tensor usually gets its own kernel.
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
    v = tl.load(x_ptr + row * n + r, mask=r < n, other=0)
    tl.store(out_ptr + row, tl.sum((v != 0).to(tl.int64), axis=0))


@triton.jit
def _count_all_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    total = tl.zeros([BLOCK], tl.int64)
    for start in range(0, n, BLOCK):
        r = start + tl.arange(0, BLOCK)
        total += (tl.load(x_ptr + r, mask=r < n, other=0) != 0).to(tl.int64)
    tl.store(out_ptr, tl.sum(total, axis=0))


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


def count_nonzero(input, dim=None):
    if dim is None:
        x = input.contiguous().view(-1)
        out = torch.empty((), dtype=torch.int64, device=input.device)
        _count_all_kernel[(1,)](x, out, x.numel(), BLOCK=1024)
        return out
    x, n, kept, reduced = _rows(input, [dim] if isinstance(dim, int) else list(dim))
    out = torch.empty(x.shape[0], dtype=torch.int64, device=input.device)
    _kernel[(x.shape[0],)](x, out, n, BLOCK=min(triton.next_power_of_2(n), BLOCK_MAX))
    return out.view(_shape(input, kept, reduced, False))
