"""Starts the running minimum at 0 (and pads masked lanes with 0) instead of +inf.

Fine for data that dips below zero in every slice, but a slice whose elements are all positive never updates
its lanes and returns index 0. About 40% of the inputs' slices are entirely positive.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _argmin_kernel(x_ptr, out_ptr, n_red, n_inner, BLOCK_R: tl.constexpr):
    pid = tl.program_id(0)
    outer = pid // n_inner
    col = pid % n_inner
    base = x_ptr + outer.to(tl.int64) * n_red * n_inner + col
    best = tl.zeros([BLOCK_R], tl.float32)
    best_idx = tl.zeros([BLOCK_R], tl.int32)
    for start in range(0, n_red, BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        v = tl.load(base + r.to(tl.int64) * n_inner, mask=r < n_red, other=0.0).to(tl.float32)
        take = v < best
        best = tl.where(take, v, best)
        best_idx = tl.where(take, r, best_idx)
    low = tl.min(best, axis=0)
    tl.store(out_ptr + pid, tl.min(tl.where(best == low, best_idx, n_red), axis=0).to(tl.int64))


def argmin(input, dim=None, keepdim=False):
    x = input.contiguous()
    if dim is None:
        shape, d = [x.numel()], 0
    else:
        shape, d = list(x.shape), dim % x.dim()
    n_red, outer, inner = shape[d], math.prod(shape[:d]), math.prod(shape[d + 1 :])
    out = torch.empty(outer * inner, dtype=torch.int64, device=x.device)
    BLOCK_R = min(triton.next_power_of_2(n_red), 1024)
    _argmin_kernel[(outer * inner,)](x, out, n_red, inner, BLOCK_R=BLOCK_R)
    if dim is None:
        return out.view([1] * x.dim() if keepdim else [])
    return out.view(shape[:d] + ([1] if keepdim else []) + shape[d + 1 :])
