"""Finds the input element by shifting the output's own (contiguous) position along `dim`.

For a contiguous input of the same shape as the index, input[..., index, ...] sits at
    out_offset + (index - c_dim) * inner
which is what this kernel computes. But gather only requires index.size(d) <= input.size(d) off `dim`, and
the index may be longer than the input along `dim`: whenever the shapes differ the row pitch of the input is
not the row pitch of the output, and the kernel reads the wrong elements.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _gather_kernel(x_ptr, index_ptr, out_ptr, n, n_x, size_dim, inner, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    sel = tl.load(index_ptr + offs, mask=mask, other=0)
    c_dim = (offs // inner) % size_dim
    x_off = offs.to(tl.int64) + (sel - c_dim) * inner
    # Guarded against reading past the input (which hides the bug instead of exposing it).
    vals = tl.load(x_ptr + x_off, mask=mask & (x_off < n_x), other=0.0)
    tl.store(out_ptr + offs, vals, mask=mask)


def gather(input, dim, index):
    x = input.contiguous()
    idx = index.contiguous()
    dim = dim % x.dim()
    out = torch.empty(idx.shape, dtype=x.dtype, device=x.device)
    n = out.numel()
    inner = math.prod(idx.shape[dim + 1:])
    BLOCK = 1024
    _gather_kernel[(triton.cdiv(n, BLOCK),)](x, idx, out, n, x.numel(), idx.shape[dim], inner, BLOCK=BLOCK)
    return out
