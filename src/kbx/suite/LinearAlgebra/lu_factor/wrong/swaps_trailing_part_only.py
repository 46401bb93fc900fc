"""Exchanges rows j and p only in the columns not yet eliminated (c >= j), as if the multipliers already stored
to the left belonged to their positions: LAPACK's convention (and torch's) applies every exchange to the whole
row, so that L is in the final row order. Here the earlier multipliers stay in the old rows, and L U no longer
equals P A (an error of order 1 wherever a later step exchanges rows)."""


import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


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
        if PIVOT:
            p = tl.argmax(tl.where((rows >= j) & (rows < m), tl.abs(col), -1.0), axis=0).to(tl.int32)
        else:
            p = j
        row_j = tl.sum(tl.where(rows[:, None] == j, w, 0.0), axis=0)
        row_p = tl.sum(tl.where(rows[:, None] == p, w, 0.0), axis=0)
        # Exchange rows j and p in the columns still to eliminate: row j becomes the pivot row.
        w = tl.where((rows[:, None] == p) & (cols[None, :] >= j), row_j[None, :], w)
        w = tl.where((rows[:, None] == j) & (cols[None, :] >= j), row_p[None, :], w)
        # Column j in the new row order: only rows j and p moved.
        col_jj = tl.sum(tl.where(rows == j, col, 0.0), axis=0)
        col = tl.where(rows == p, col_jj, col)
        pivot = tl.sum(tl.where(cols == j, row_p, 0.0), axis=0)
        # A zero pivot means the column is zero from row j down: dividing by 1 instead keeps its zeros.
        safe = tl.where(pivot != 0.0, pivot, 1.0)
        mult = tl.where(rows > j, col / safe, 0.0)
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
