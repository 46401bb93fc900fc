"""Computes log(sum(exp(x))) directly, without subtracting the maximum first.

Right in exact arithmetic and fine for values near 0, but exp overflows to inf once an element passes ~88.7, and
a slice whose elements are all below ~-103 sums to 0 and gives log(0) = -inf. The inputs' per-slice offsets
reach +-1000, so the results are not finite.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _row_lse_kernel(x_ptr, out_ptr, R, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, R, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * R + cols, mask=cols < R, other=float("-inf")).to(tl.float32)
        acc += tl.exp(v)
    tl.store(out_ptr + row, tl.log(tl.sum(acc, axis=0)).to(out_ptr.dtype.element_ty))


def logsumexp(input, dim, keepdim=False):
    nd = input.dim()
    reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in reduced]
    R = math.prod(input.shape[d] for d in reduced)
    x = input.permute(kept + reduced).contiguous()
    out = torch.empty([input.shape[d] for d in kept], dtype=input.dtype, device=input.device)
    _row_lse_kernel[(max(out.numel(), 1),)](x, out, R, BLOCK=min(triton.next_power_of_2(R), 1024))
    if keepdim:
        return out.reshape([1 if d in reduced else input.shape[d] for d in range(nd)])
    return out
