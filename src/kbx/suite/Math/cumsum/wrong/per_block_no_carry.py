"""Scans each chunk of BLOCK_L elements on its own and never carries the running total into the next chunk.

Everything else is the solution's: the (outer, L, inner) view, tile shapes, fp32 accumulation. Every scan that
fits in one chunk (up to 1024 elements along a contiguous dim, fewer across rows) is right; longer scans restart
from zero at every chunk boundary, so element 1024 of a row gets x[1024] instead of the sum of x[0..1024].
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _cumsum_kernel(
    x_ptr, out_ptr,
    n_scans, L, inner,
    s_outer, s_l, s_inner,
    BLOCK_J: tl.constexpr, BLOCK_L: tl.constexpr,
):
    # The independent scans this program owns, split into (outer, inner) coordinates once.
    j = tl.program_id(0).to(tl.int64) * BLOCK_J + tl.arange(0, BLOCK_J)
    j_mask = j < n_scans
    o_idx = j // inner
    i_idx = j % inner
    x_base = o_idx * s_outer + i_idx * s_inner
    # Output is contiguous (outer, L, inner).
    out_base = o_idx * L * inner + i_idx

    for l0 in range(0, L, BLOCK_L):
        l = l0 + tl.arange(0, BLOCK_L).to(tl.int64)
        mask = j_mask[:, None] & (l < L)[None, :]
        x = tl.load(x_ptr + x_base[:, None] + l[None, :] * s_l, mask=mask, other=0.0).to(tl.float32)
        y = tl.cumsum(x, axis=1)
        tl.store(out_ptr + out_base[:, None] + l[None, :] * inner, y.to(out_ptr.dtype.element_ty), mask=mask)


def _as_3d(x, dim):
    """Sizes and strides of x viewed as (outer, L, inner) around `dim`, or None if the outer or inner dims
    cannot be merged into one strided dim without copying."""

    def merge(sizes, strides):
        size, stride = 1, 0
        for n, s in zip(reversed(sizes), reversed(strides)):
            if n == 1:
                continue
            if size == 1:
                size, stride = n, s
            elif s == stride * size:
                size *= n
            else:
                return None
        return size, stride

    shape, strides = list(x.shape), list(x.stride())
    outer = merge(shape[:dim], strides[:dim])
    inner = merge(shape[dim + 1:], strides[dim + 1:])
    if outer is None or inner is None:
        return None
    return outer, (shape[dim], strides[dim]), inner


def cumsum(input, dim):
    dim = dim % max(input.dim(), 1)
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if input.numel() == 0:
        return out
    x = input if input.dim() > 0 else input.reshape(1)
    view = _as_3d(x, dim)
    if view is None:
        x = x.contiguous()
        view = _as_3d(x, dim)
    (n_outer, s_outer), (L, s_l), (inner, s_inner) = view

    n_scans = n_outer * inner
    if inner == 1:
        # Scanning the contiguous dim: wide along L, a few scans per program.
        BLOCK_L = min(triton.next_power_of_2(L), 1024)
        BLOCK_J = min(triton.next_power_of_2(n_scans), max(1, 4096 // BLOCK_L))
    else:
        # Scanning across rows: wide along the contiguous scans, a few steps of L per chunk.
        BLOCK_J = min(triton.next_power_of_2(n_scans), 128)
        BLOCK_L = min(triton.next_power_of_2(L), max(1, 4096 // BLOCK_J))
    grid = (triton.cdiv(n_scans, BLOCK_J),)
    _cumsum_kernel[grid](
        x, out, n_scans, L, inner, s_outer, s_l, s_inner,
        BLOCK_J=BLOCK_J, BLOCK_L=BLOCK_L, num_warps=4,
    )
    return out
