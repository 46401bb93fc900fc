"""log(sum(exp(x))) of each slice from its first 8192 elements only.

Each slice (the reduced dims moved last) is read as one tile of next_power_of_2(n) elements, capped at BLOCK_MAX =
8192, and the rest of a longer slice is never read: a fixed block that caps the row length, sized for the rows the
author tried. Right on every slice of up to 8192 elements, which is every workload but `check_late_peak`, whose
slices are 9001 long, with one element 10 above the rest past element 8192, which dominates the sum.
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
    v = tl.load(x_ptr + row * n + r, mask=r < n, other=float("-inf")).to(tl.float32)
    top = tl.max(v, axis=0)
    # An infinite maximum is replaced by 0, as PyTorch does: an all -inf slice sums to 0 (log gives -inf), a slice
    # holding +inf sums to +inf.
    top = tl.where(tl.abs(top) == float("inf"), 0.0, top)
    total = tl.sum(tl.exp(v - top), axis=0)
    tl.store(out_ptr + row, (top + tl.log(total)).to(out_ptr.dtype.element_ty))


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


def logsumexp(input, dim, keepdim=False):
    x, n, kept, reduced = _rows(input, [dim] if isinstance(dim, int) else list(dim))
    out = torch.empty(x.shape[0], dtype=input.dtype, device=input.device)
    _kernel[(x.shape[0],)](x, out, n, BLOCK=min(triton.next_power_of_2(n), BLOCK_MAX))
    return out.view(_shape(input, kept, reduced, keepdim))
