"""Reads the right-hand sides B as a dense (n, k) panel per system: B[b, i, j] at (b * n + i) * k + j.

A and X go through their strides, but B is indexed as if it were contiguous (left=False makes a contiguous copy
of Bᵀ first, so that path is right). A B that is a transposed or strided view (right-hand sides stored column
by column, a slice of a wider buffer) is read as the wrong matrix; a contiguous B happens to work.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _solve_kernel(a_ptr, b_ptr, x_ptr, n, k,
                  sab, sar, sac, sbb, sbr, sbc, sxb, sxr, sxc,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols_k = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    rows = tl.arange(0, BLOCK_N)
    cols = tl.arange(0, BLOCK_N)
    in_a = (rows[:, None] < n) & (cols[None, :] < n)
    w = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=in_a, other=0.0).to(tl.float32)
    in_b = (rows[:, None] < n) & (cols_k[None, :] < k)
    panel = tl.load(b_ptr + b * sbb + rows[:, None] * sbr + cols_k[None, :] * sbc, mask=in_b, other=0.0)
    panel = panel.to(tl.float32)

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


def solve(A, B, left=True):
    n = A.shape[-1]
    assert A.shape[-2] == n and n <= 64, "square A with n <= 64 (batched small systems)"
    batch = torch.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    out = torch.empty((*batch, *B.shape[-2:]), dtype=B.dtype, device=B.device)
    a = A.expand(*batch, n, n).reshape(-1, n, n)  # views for one batch dim; a copy only if they cannot merge
    b = B.expand(*batch, *B.shape[-2:]).reshape(-1, *B.shape[-2:])
    x = out.view(-1, *B.shape[-2:])
    if not left:  # X A = B  <=>  Aᵀ Xᵀ = Bᵀ
        a, x = a.transpose(1, 2), x.transpose(1, 2)
        b = b.transpose(1, 2).contiguous()  # Bᵀ as a dense (n, k) panel
    k = b.shape[2]
    if x.numel() == 0:
        return out
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    BLOCK_K = min(max(triton.next_power_of_2(k), 16), 64)
    grid = (x.shape[0], triton.cdiv(k, BLOCK_K))
    # The right-hand sides: a dense (n, k) panel per system.
    _solve_kernel[grid](a, b, x, n, k, *a.stride(), n * k, k, 1, *x.stride(),
                        BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return out
