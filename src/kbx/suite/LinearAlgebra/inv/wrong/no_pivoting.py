"""Gauss-Jordan without row exchanges: divides by whatever sits on the diagonal, which for these permuted matrices
is a small entry or, where A[0, 0] is exactly 0, zero: the inverse comes out inf / NaN."""


import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


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
        p = j
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
