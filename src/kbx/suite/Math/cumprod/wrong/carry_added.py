"""A cumsum kernel turned into cumprod by changing the scan, but not the carry: earlier chunks' products are added.

Within one chunk the scan multiplies correctly, so every scan that fits in a single chunk (up to 1024 elements
along a contiguous dim, fewer across rows) passes. In longer scans each later chunk gets the previous chunks'
product *added* to its own running product instead of multiplying it: element 1024 of a row of values near 1
comes out near 2 instead of near the true product.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _cumprod_kernel(
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

    carry = tl.zeros([BLOCK_J], dtype=tl.float32)
    for l0 in range(0, L, BLOCK_L):
        l = l0 + tl.arange(0, BLOCK_L).to(tl.int64)
        mask = j_mask[:, None] & (l < L)[None, :]
        x = tl.load(x_ptr + x_base[:, None] + l[None, :] * s_l, mask=mask, other=1.0).to(tl.float32)
        # Inclusive scan of this chunk, continued from the earlier chunks (as cumsum would continue a sum).
        y = tl.cumprod(x, axis=1) + carry[:, None]
        tl.store(out_ptr + out_base[:, None] + l[None, :] * inner, y.to(out_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(tl.where(tl.arange(0, BLOCK_L)[None, :] == BLOCK_L - 1, tl.cumprod(x, axis=1), 0.0), axis=1)


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


def cumprod(input, dim):
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
    _cumprod_kernel[grid](
        x, out, n_scans, L, inner, s_outer, s_l, s_inner,
        BLOCK_J=BLOCK_J, BLOCK_L=BLOCK_L, num_warps=4,
    )
    return out
