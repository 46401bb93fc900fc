"""Derives the strides from the shape instead of reading them from the tensor.

For an int `dim` the input is treated as (outer, L, inner) with the strides a contiguous tensor of that shape
would have, (L * inner, inner, 1), and read in place; tuples of dims go through a correct permute+contiguous
path. Contiguous inputs therefore pass, but a transposed or strided input is read as if its storage were
row-major, so the wrong elements are summed.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _sum_kernel(x_ptr, out_ptr, n_out, L, inner, s_outer, s_l, BLOCK_O: tl.constexpr, BLOCK_L: tl.constexpr):
    # Each program sums BLOCK_O outputs; output k sits at (outer, inner) = divmod(k, inner).
    k = tl.program_id(0).to(tl.int64) * BLOCK_O + tl.arange(0, BLOCK_O)
    base = (k // inner) * s_outer + k % inner
    acc = tl.zeros([BLOCK_O, BLOCK_L], dtype=tl.float32)
    for start in range(0, L, BLOCK_L):
        l = start + tl.arange(0, BLOCK_L)
        mask = (k < n_out)[:, None] & (l < L)[None, :]
        acc += tl.load(x_ptr + base[:, None] + l[None, :] * s_l, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + k, tl.sum(acc, axis=1).to(out_ptr.dtype.element_ty), mask=k < n_out)


def sum(input, dim, keepdim=False):
    nd = input.dim()
    reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in reduced]
    length = math.prod(input.shape[d] for d in reduced)
    if len(reduced) == 1:
        d = reduced[0]
        x = input  # BUG: assumes row-major storage
        inner = math.prod(input.shape[d + 1:])
        s_outer, s_l = length * inner, inner
    else:
        x = input.permute(kept + reduced).contiguous()
        inner, s_outer, s_l = 1, length, 1
    n_out = math.prod(input.shape[k] for k in kept)
    out = torch.empty([input.shape[k] for k in kept], dtype=input.dtype, device=input.device)
    _sum_kernel[(triton.cdiv(n_out, 32),)](x, out, n_out, length, inner, s_outer, s_l, BLOCK_O=32, BLOCK_L=128)
    if keepdim:
        out = out.reshape([1 if d in reduced else input.shape[d] for d in range(nd)])
    return out
