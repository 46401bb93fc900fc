"""Inverts through the normal equations, A⁻¹ = (Aᵀ A)⁻¹ Aᵀ (the pseudo-inverse formula): it solves (Aᵀ A) X = Aᵀ
by elimination without row exchanges, since Aᵀ A is symmetric positive definite. In exact arithmetic X = A⁻¹, but
forming Aᵀ A squares the condition number, so the error grows like cond(A)² u rather than cond(A) u.

Even at cond(A) <= 4 the squared condition number shows: scripts/verify_tasks.py found one element of
check_33 at 1.27x its bound before check_cond_1e4 was added (1.12x after, another seed), and seeds 0 and 1 put
check_strided's worst at 0.54 and 1.41. On check_cond_1e4 (cond(Aᵀ A) = 1e8 > 1/u) it misses elements' bounds by
4,700-11,400x (seeds 0 and 1)."""


import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _inv_kernel(a_ptr, x_ptr, n, k,
                sab, sar, sac, sxb, sxr, sxc,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols_k = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    rows = tl.arange(0, BLOCK_N)
    cols = tl.arange(0, BLOCK_N)
    in_a = (rows[:, None] < n) & (cols[None, :] < n)
    a = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=in_a, other=0.0).to(tl.float32)
    in_b = (rows[:, None] < n) & (cols_k[None, :] < k)
    # The normal equations: W = Aᵀ A (symmetric positive definite); the panel is this program's columns of Aᵀ.
    w = tl.dot(tl.trans(a), a, input_precision="ieee")
    panel = tl.load(a_ptr + b * sab + cols_k[None, :] * sar + rows[:, None] * sac, mask=in_b, other=0.0)
    panel = panel.to(tl.float32)

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
