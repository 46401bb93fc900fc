"""Batched matrix inverse in Triton: LU with partial pivoting applied to [A | I], then back substitution, one
program per (matrix, block of columns of the inverse), all in registers.

Scope. Made for batches of many small matrices (n <= 64): each program loads its n x n matrix once, builds its
block of identity columns in registers, solves A X = I for them and stores X once: one read of A and one write
of A⁻¹, nothing in between. Large matrices would need a blocked, multi-program algorithm instead.

Algorithm. Gaussian elimination on [A | I] with partial pivoting, as LAPACK's getrf + getri: step j finds the row
p >= j with the largest |W[p, j]| (`tl.argmax` over a masked column), swaps rows j and p of W and of the panel,
and subtracts multiples of row j from the rows below. W is then upper triangular, and back substitution from the
last row up gives the columns of A⁻¹. Rows and columns are picked out of the register tiles with masked sums:
O(n * (n + BLOCK_K)) register operations per step, all in fp32.

Speed. The bench (2^17 matrices, n = 32, fp32) moves 1.1 GB (~0.4 ms at ~3 TB/s on an H100) and runs about
1e11 fp32 register operations, roughly 2-4 ms on the CUDA cores; batched cuBLAS getrf + getri on matrices this
small takes several ms.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _inv_kernel(a_ptr, x_ptr, n, k,
                sab, sar, sac, sxb, sxr, sxc,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols_k = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    rows = tl.arange(0, BLOCK_N)
    cols = tl.arange(0, BLOCK_N)
    in_a = (rows[:, None] < n) & (cols[None, :] < n)
    w = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=in_a, other=0.0).to(tl.float32)
    in_b = (rows[:, None] < n) & (cols_k[None, :] < k)
    panel = tl.where(rows[:, None] == cols_k[None, :], 1.0, 0.0)  # this program's columns of I

    # --- Forward elimination with partial pivoting: W becomes U, the panel becomes L⁻¹ P B. ---
    for j in range(0, n):
        w_col = tl.sum(tl.where(cols[None, :] == j, w, 0.0), axis=1)
        candidates = tl.where((rows >= j) & (rows < n), tl.abs(w_col), -1.0)
        p = tl.argmax(candidates, axis=0)
        # Swap rows j and p (a no-op when p == j).
        row_j = tl.sum(tl.where(rows[:, None] == j, w, 0.0), axis=0)
        row_p = tl.sum(tl.where(rows[:, None] == p, w, 0.0), axis=0)
        w = tl.where(rows[:, None] == j, row_p[None, :], tl.where(rows[:, None] == p, row_j[None, :], w))
        rhs_j = tl.sum(tl.where(rows[:, None] == j, panel, 0.0), axis=0)
        rhs_p = tl.sum(tl.where(rows[:, None] == p, panel, 0.0), axis=0)
        panel = tl.where(rows[:, None] == j, rhs_p[None, :], tl.where(rows[:, None] == p, rhs_j[None, :], panel))
        # Eliminate below the pivot; the swapped column j is w_col with entries j and p exchanged.
        pivot = tl.sum(tl.where(cols == j, row_p, 0.0), axis=0)
        col_j = tl.where(rows == p, tl.sum(tl.where(rows == j, w_col, 0.0), axis=0), w_col)
        f = tl.where(rows > j, col_j / pivot, 0.0)
        w = w - f[:, None] * row_p[None, :]
        panel = panel - f[:, None] * rhs_p[None, :]

    # --- Back substitution with U, from the last row up. ---
    for step in range(0, n):
        i = n - 1 - step
        u_col = tl.sum(tl.where(cols[None, :] == i, w, 0.0), axis=1)
        u_ii = tl.sum(tl.where(rows == i, u_col, 0.0), axis=0)
        x_i = tl.sum(tl.where(rows[:, None] == i, panel, 0.0), axis=0) / u_ii
        panel = tl.where(rows[:, None] < i, panel - u_col[:, None] * x_i[None, :], panel)
        panel = tl.where(rows[:, None] == i, x_i[None, :], panel)
    tl.store(x_ptr + b * sxb + rows[:, None] * sxr + cols_k[None, :] * sxc,
             panel.to(x_ptr.dtype.element_ty), mask=in_b)


def inv(A):
    n = A.shape[-1]
    assert A.shape[-2] == n and n <= 64, "square A with n <= 64 (batched small matrices)"
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    a = A.reshape(-1, n, n)  # a view whenever the batch dims merge; a copy otherwise
    x = out.view(-1, n, n)
    if out.numel() == 0:
        return out
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    BLOCK_K = BLOCK_N
    grid = (x.shape[0], triton.cdiv(n, BLOCK_K))
    _inv_kernel[grid](a, x, n, n, *a.stride(), *x.stride(), BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return out
