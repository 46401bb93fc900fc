"""The vector norm of each slice from its first 8192 elements only.

Each slice (the reduced dims moved last) is read as one tile of next_power_of_2(n) elements, capped at BLOCK_MAX =
8192, and the rest of a longer slice is never read: a fixed block that caps the row length, sized for the rows the
author tried. Right on every slice of up to 8192 elements, which is every workload but `check_late_peak_inf`, whose
slices are 9001 long and hold their largest magnitude (the inf-norm) past element 8192.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

BLOCK_MAX = 8192  # BUG: elements past the first BLOCK_MAX of a slice are never read


@triton.jit
def _kernel(x_ptr, out_ptr, n, ORD: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, BLOCK)
    a = tl.abs(tl.load(x_ptr + row * n + r, mask=r < n, other=0.0).to(tl.float32))
    if ORD == 1:
        result = tl.sum(a, axis=0)
    elif ORD == 2:
        result = tl.sqrt(tl.sum(a * a, axis=0))
    else:
        result = tl.max(a, axis=0)
    tl.store(out_ptr + row, result.to(out_ptr.dtype.element_ty))


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


def vector_norm(x, ord=2, dim=None, keepdim=False):
    input = x
    rows, n, kept, reduced = _rows(input, [] if dim is None else [dim] if isinstance(dim, int) else list(dim))
    out = torch.empty(rows.shape[0], dtype=input.dtype, device=input.device)
    kind = 1 if ord == 1 else 2 if ord == 2 else 0  # 0: the inf-norm
    _kernel[(rows.shape[0],)](rows, out, n, ORD=kind, BLOCK=min(triton.next_power_of_2(n), BLOCK_MAX))
    return out.view(_shape(input, kept, reduced, keepdim))
