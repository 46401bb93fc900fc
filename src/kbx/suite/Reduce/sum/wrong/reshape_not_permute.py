"""Uses reshape(-1, L) to bring the reduced elements together, without moving the reduced dims last.

`input.reshape(-1, L)` has the right number of rows and columns for any `dim`, so the output shape is right,
but only for a reduction over the trailing dims are a row's L elements the ones that belong to one output.
For dim=0 or a middle dim each "row" mixes elements of several outputs, so the sums are wrong.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, L, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, L, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * L + cols, mask=cols < L, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def sum(input, dim, keepdim=False):
    nd = input.dim()
    reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    length = math.prod(input.shape[d] for d in reduced)
    x = input.contiguous().reshape(-1, length)  # BUG: should be permute(kept + reduced) first
    if keepdim:
        out_shape = [1 if d in reduced else input.shape[d] for d in range(nd)]
    else:
        out_shape = [input.shape[d] for d in range(nd) if d not in reduced]
    out = torch.empty(out_shape, dtype=input.dtype, device=input.device)
    _row_sum_kernel[(x.shape[0],)](x, out, length, BLOCK=1024)
    return out
