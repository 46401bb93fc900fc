"""LU with partial pivoting that divides by every pivot, zero or not: the determinant of an exactly singular matrix
comes out NaN instead of 0.

Where column j is zero from row j down, the pivot is 0 and the factors col_j / pivot are 0 / 0 = NaN; they reach
the rest of the matrix and the running product, so det is NaN where torch.linalg.det (getrf skips the division)
returns 0. Every other workload is nonsingular and passes; `check_singular` (a zero middle column, an all-zero
matrix) catches it.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _det_kernel(a_ptr, out_ptr, n, sab, sar, sac, BLOCK_N: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BLOCK_N)
    cols = tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < n) & (cols[None, :] < n)
    w = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=inside, other=0.0).to(tl.float32)
    det = 1.0
    for j in range(0, n):
        w_col = tl.sum(tl.where(cols[None, :] == j, w, 0.0), axis=1)
        p = tl.argmax(tl.where((rows >= j) & (rows < n), tl.abs(w_col), -1.0), axis=0)
        row_j = tl.sum(tl.where(rows[:, None] == j, w, 0.0), axis=0)
        row_p = tl.sum(tl.where(rows[:, None] == p, w, 0.0), axis=0)
        # Row exchange: row j takes the pivot row; row p takes the old row j (the only row below j that changes).
        w = tl.where(rows[:, None] == p, row_j[None, :], w)
        pivot = tl.sum(tl.where(cols == j, row_p, 0.0), axis=0)
        det = det * tl.where(p != j, -pivot, pivot)
        col_j = tl.where(rows == p, tl.sum(tl.where(rows == j, w_col, 0.0), axis=0), w_col)
        f = tl.where(rows > j, col_j / pivot, 0.0)
        w = w - f[:, None] * row_p[None, :]
    tl.store(out_ptr + b, det.to(out_ptr.dtype.element_ty))


def det(A):
    n = A.shape[-1]
    assert A.shape[-2] == n and n <= 64, "square A with n <= 64 (batched small matrices)"
    out = torch.empty(A.shape[:-2], dtype=A.dtype, device=A.device)
    a = A.reshape(-1, n, n)  # a view whenever the batch dims merge; a copy otherwise
    if out.numel() == 0:
        return out
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    _det_kernel[(a.shape[0],)](a, out, n, *a.stride(), BLOCK_N=BLOCK_N, num_warps=4)
    return out
