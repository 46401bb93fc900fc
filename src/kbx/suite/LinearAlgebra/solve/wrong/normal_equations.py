"""Solves the normal equations (Aᵀ A) X = Aᵀ B instead of A X = B: Aᵀ A is symmetric positive definite, so the
kernel eliminates without row exchanges, as a Cholesky-style solver may. In exact arithmetic X is the same, but
forming Aᵀ A squares the condition number, so the error grows like cond(A)² u rather than cond(A) u.

Measured on the CPU interpreter (seeds 0 and 1): it PASSED every workload before `check_cond_1e4` was added (worst
element at 0.23 of its bound, on check_wide_rhs_t), since cond(A) <= 4 there; on check_cond_1e4 (cond(A) = 1e4, so
cond(Aᵀ A) = 1e8 > 1/u) it misses elements' bounds by 7,500-9,600x.

scripts/verify_tasks.py's run: PASSED before check_cond_1e4 was added; MISMATCH after, 655 of its 660 elements
out, the worst at 942x its bound."""


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
    a = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=in_a, other=0.0).to(tl.float32)
    in_b = (rows[:, None] < n) & (cols_k[None, :] < k)
    rhs = tl.load(b_ptr + b * sbb + rows[:, None] * sbr + cols_k[None, :] * sbc, mask=in_b, other=0.0)
    # The normal equations: W = Aᵀ A (symmetric positive definite), panel = Aᵀ B, in fp32.
    w = tl.dot(tl.trans(a), a, input_precision="ieee")
    panel = tl.dot(tl.trans(a), rhs.to(tl.float32), input_precision="ieee")

    # --- Forward elimination; W is SPD, so its diagonal pivots are positive and no row exchange is needed. ---
    for j in range(0, n):
        row_j = tl.sum(tl.where(rows[:, None] == j, w, 0.0), axis=0)
        rhs_j = tl.sum(tl.where(rows[:, None] == j, panel, 0.0), axis=0)
        pivot = tl.sum(tl.where(cols == j, row_j, 0.0), axis=0)
        w_col = tl.sum(tl.where(cols[None, :] == j, w, 0.0), axis=1)
        f = tl.where(rows > j, w_col / pivot, 0.0)
        w = w - f[:, None] * row_j[None, :]
        panel = panel - f[:, None] * rhs_j[None, :]

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
        a, b, x = a.transpose(1, 2), b.transpose(1, 2), x.transpose(1, 2)
    k = b.shape[2]
    if x.numel() == 0:
        return out
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    BLOCK_K = min(max(triton.next_power_of_2(k), 16), 64)
    grid = (x.shape[0], triton.cdiv(k, BLOCK_K))
    _solve_kernel[grid](a, b, x, n, k, *a.stride(), *b.stride(), *x.stride(),
                        BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return out
