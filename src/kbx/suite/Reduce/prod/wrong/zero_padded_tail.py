"""Pads masked-off lanes with 0 (the habit from writing sums) instead of 1, the identity of the product.

Every slice whose length is not a multiple of the block size has padded lanes in its last tile, and one 0 there
makes the whole product 0. Only slices whose length fills every tile come out right.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _multiply(a, b):
    return a * b


@triton.jit
def _prod_kernel(x_ptr, out_ptr, n_red, n_inner, BLOCK_R: tl.constexpr):
    pid = tl.program_id(0)
    outer = pid // n_inner
    col = pid % n_inner
    base = x_ptr + outer.to(tl.int64) * n_red * n_inner + col
    acc = tl.full([BLOCK_R], 1.0, tl.float32)
    for start in range(0, n_red, BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        acc *= tl.load(base + r.to(tl.int64) * n_inner, mask=r < n_red, other=0.0).to(tl.float32)
    tl.store(out_ptr + pid, tl.reduce(acc, 0, _multiply).to(out_ptr.dtype.element_ty))


def prod(input, dim, keepdim=False):
    x = input.contiguous()
    shape = list(x.shape)
    d = dim % len(shape)
    n_red, outer, inner = shape[d], math.prod(shape[:d]), math.prod(shape[d + 1 :])
    out = torch.empty(outer * inner, dtype=x.dtype, device=x.device)
    BLOCK_R = min(triton.next_power_of_2(n_red), 256)
    _prod_kernel[(outer * inner,)](x, out, n_red, inner, BLOCK_R=BLOCK_R)
    return out.view(shape[:d] + ([1] if keepdim else []) + shape[d + 1 :])
