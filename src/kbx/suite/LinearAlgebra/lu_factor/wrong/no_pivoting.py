"""Gaussian elimination without row exchanges (the pivot is always the diagonal entry; the pivots come out as
1, 2, ..., k as if nothing moved): on the matrices whose corner A[0, 0] is exactly 0 the first division gives
inf / NaN, and tiny leading pivots elsewhere blow the factors up."""


import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _lu_kernel(a_ptr, lu_ptr, piv_ptr, m, n, k, sab, sar, sac,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PIVOT: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < m) & (cols[None, :] < n)
    w = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=inside, other=0.0)
    w = w.to(tl.float32)
    piv = tl.zeros((BLOCK_N,), dtype=tl.int32)  # k <= n pivots, one per lane
    for j in range(0, k):
        col = tl.sum(tl.where(cols[None, :] == j, w, 0.0), axis=1)  # column j, every row
        p = j  # the diagonal entry is taken as the pivot
        row_j = tl.sum(tl.where(rows[:, None] == j, w, 0.0), axis=0)
        row_p = tl.sum(tl.where(rows[:, None] == p, w, 0.0), axis=0)
        # Exchange whole rows j and p (a no-op when p == j): row j becomes the pivot row.
        w = tl.where(rows[:, None] == p, row_j[None, :], w)
        w = tl.where(rows[:, None] == j, row_p[None, :], w)
        # Column j in the new row order: only rows j and p moved.
        col_jj = tl.sum(tl.where(rows == j, col, 0.0), axis=0)
        col = tl.where(rows == p, col_jj, col)
        pivot = tl.sum(tl.where(cols == j, row_p, 0.0), axis=0)
        mult = tl.where(rows > j, col / pivot, 0.0)
        # Rank-1 update of the trailing columns; the multipliers replace column j below the diagonal.
        w = w - mult[:, None] * tl.where(cols > j, row_p, 0.0)[None, :]
        w = tl.where((cols[None, :] == j) & (rows[:, None] > j), mult[:, None], w)
        piv = tl.where(cols == j, p + 1, piv)
    tl.store(lu_ptr + b * m * n + rows[:, None] * n + cols[None, :], w.to(lu_ptr.dtype.element_ty), mask=inside)
    tl.store(piv_ptr + b * k + cols, piv, mask=cols < k)


def lu_factor(A, pivot=True):
    m, n = A.shape[-2], A.shape[-1]
    assert m <= 64 and n <= 64, "small matrices only (m, n <= 64): one matrix per program, in registers"
    k = min(m, n)
    lu = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    pivots = torch.empty((*A.shape[:-2], k), dtype=torch.int32, device=A.device)
    a = A.reshape(-1, m, n)  # a view whenever the batch dims merge; a copy otherwise
    if lu.numel() == 0:
        return lu, pivots
    BLOCK_M = max(triton.next_power_of_2(m), 16)
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    # About 16 elements of the register tile per thread: 1 warp for 16 x 16, 2 for 32 x 32, 8 for 64 x 64.
    num_warps = min(max(BLOCK_M * BLOCK_N // 512, 1), 8)
    _lu_kernel[(a.shape[0],)](a, lu, pivots, m, n, k, *a.stride(), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                              PIVOT=pivot, num_warps=num_warps)
    return lu, pivots
