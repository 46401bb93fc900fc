"""Batched determinant in Triton: LU with partial pivoting in registers, one program per matrix.

Scope. Made for batches of many small matrices (n <= 64): each program loads its n x n matrix once, eliminates in
registers and stores one number, so traffic is one read of A. Large matrices would need a blocked LU instead.

Algorithm. Gaussian elimination with partial pivoting, as LAPACK's getrf: step j finds the row p >= j with the
largest |W[p, j]| (`tl.argmax` over a masked column), swaps rows j and p (flipping the sign when p != j),
multiplies the running determinant by the pivot and subtracts multiples of the pivot row from the rows below. A
zero pivot (an exactly singular matrix: the column is zero from row j down) makes the determinant 0 and eliminates
nothing, as getrf skips the division.
Registers cannot be indexed dynamically, so rows and columns are picked out with masked sums: O(n^2) register
operations per step, O(n^3) per matrix, all in fp32. The running product is exact in range for these sizes (n
pivots of magnitude ~1-2).

Speed. The bench (2^18 matrices, n = 32, fp32) reads 1.1 GB (~0.4 ms at ~3 TB/s on an H100) and runs about 1e11
fp32 register operations, roughly 2-3 ms on the CUDA cores; eager PyTorch (batched getrf, then a product of the
diagonal) takes several ms on matrices this small.
"""

import torch
import triton
import triton.language as tl


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
        # A zero pivot means column j is zero from row j down: det is 0 and, as in getrf, nothing is eliminated
        # (dividing by it would make 0 / 0 = NaN of the factors, and of det).
        f = tl.where(rows > j, col_j / tl.where(pivot == 0.0, 1.0, pivot), 0.0)
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
