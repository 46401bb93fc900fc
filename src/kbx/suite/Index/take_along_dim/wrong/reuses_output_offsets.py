"""Finds the input element by shifting the output's own (contiguous) position along `dim`.

In the common top-k use the indices have input's shape except along `dim`, and when additionally the sizes
match, input[..., index, ...] sits at out_offset + (index - c_dim) * inner. This kernel assumes so. With
broadcasting (one index row shared by all channels, or an input row shared by all index rows) or an index longer
or shorter than the input along other dims, the output's row pitch is not the input's and it reads the wrong
elements (a bounds guard keeps it inside the input).
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _take_kernel(x_ptr, index_ptr, out_ptr, n, n_x, size_dim, inner, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    sel = tl.load(index_ptr + offs, mask=mask, other=0)
    c_dim = (offs // inner) % size_dim
    x_off = offs.to(tl.int64) + (sel - c_dim) * inner
    vals = tl.load(x_ptr + x_off, mask=mask & (x_off >= 0) & (x_off < n_x), other=0.0)
    tl.store(out_ptr + offs, vals, mask=mask)


def take_along_dim(input, indices, dim=None):
    x = input.contiguous()
    idx = indices.contiguous()
    if dim is None:
        x, idx, dim = x.reshape(-1), idx.reshape(-1), 0
    dim = dim % x.dim()
    out = torch.empty(idx.shape, dtype=x.dtype, device=x.device)
    n = out.numel()
    inner = math.prod(idx.shape[dim + 1:])
    BLOCK = 1024
    _take_kernel[(triton.cdiv(n, BLOCK),)](x, idx, out, n, x.numel(), idx.shape[dim], inner, BLOCK=BLOCK)
    return out
