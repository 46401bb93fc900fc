"""Back substitution with Rᵀ in place of R: the coupling terms are read down column i of the factor
(R[c, i], c > i) instead of along row i (R[i, c]). Below the diagonal the factor holds only rounding residue,
so each unknown is solved as if R were diagonal and X is wrong whenever n > 1."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _lstsq_kernel(a_ptr, b_ptr, x_ptr, m, n, k,
                  sab, sar, sac, sbb, sbr, sbc, sxb, sxr, sxc,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)  # int64: batch * stride exceeds 2^31 at bench sizes
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    rhs = tl.arange(0, BLOCK_K)
    w = tl.load(a_ptr + pid * sab + rows[:, None] * sar + cols[None, :] * sac,
                mask=(rows[:, None] < m) & (cols[None, :] < n), other=0.0).to(tl.float32)
    y = tl.load(b_ptr + pid * sbb + rows[:, None] * sbr + rhs[None, :] * sbc,
                mask=(rows[:, None] < m) & (rhs[None, :] < k), other=0.0).to(tl.float32)

    # --- Householder QR: W becomes R on top, Y becomes Qᵀ B. Padding rows are zero and stay zero. ---
    for j in range(0, n):
        x = tl.sum(tl.where(cols[None, :] == j, w, 0.0), axis=1)        # column j of W
        x = tl.where(rows >= j, x, 0.0)                                  # ... on and below the diagonal
        x_j = tl.sum(tl.where(rows == j, x, 0.0), axis=0)
        norm = tl.sqrt(tl.sum(x * x, axis=0))
        alpha = tl.where(x_j >= 0, -norm, norm)
        v = tl.where(rows == j, x - alpha, x)                            # v = x - alpha e_j
        vtv = tl.sum(v * v, axis=0)
        tau = tl.where(vtv > 0, 2.0 / vtv, 0.0)                          # a zero column needs no reflection
        w = w - (tau * v)[:, None] * tl.sum(v[:, None] * w, axis=0)[None, :]
        y = y - (tau * v)[:, None] * tl.sum(v[:, None] * y, axis=0)[None, :]

    # --- Back substitution R X = (Qᵀ B)[:n], from the last row up. ---
    xrows = tl.arange(0, BLOCK_N)
    sol = tl.zeros((BLOCK_N, BLOCK_K), dtype=tl.float32)
    for step in range(0, n):
        i = n - 1 - step
        col_i = tl.sum(tl.where(cols[None, :] == i, w, 0.0), axis=1)    # column i of R ...
        r_i = tl.sum(tl.where(rows[:, None] == xrows[None, :], col_i[:, None], 0.0), axis=0)  # ... as a row
        r_ii = tl.sum(tl.where(cols == i, r_i, 0.0), axis=0)
        y_i = tl.sum(tl.where(rows[:, None] == i, y, 0.0), axis=0)
        r_right = tl.where(cols > i, r_i, 0.0)                           # rows > i of sol are solved already
        x_i = (y_i - tl.sum(r_right[:, None] * sol, axis=0)) / r_ii
        sol = tl.where(xrows[:, None] == i, x_i[None, :], sol)
    tl.store(x_ptr + pid * sxb + xrows[:, None] * sxr + rhs[None, :] * sxc, sol.to(x_ptr.dtype.element_ty),
             mask=(xrows[:, None] < n) & (rhs[None, :] < k))


def lstsq(A, B, rcond=None, driver=None):
    """The `solution` of torch.linalg.lstsq(A, B) for full-column-rank A (..., m, n), m >= n, and B (..., m, k).

    Returns only the solution tensor (..., n, k); rcond and driver do not change it for full-rank A.
    """
    m, n, k = A.shape[-2], A.shape[-1], B.shape[-1]
    assert B.dim() == A.dim() and B.shape[-2] == m, "B must be a matrix (..., m, k)"
    assert n <= m <= 256 and n <= 64, "tall A with m <= 256, n <= 64 (batched small systems)"
    batch = torch.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    out = torch.empty((*batch, n, k), dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    # Broadcast batch dims as views; reshape copies only where they cannot merge.
    a = A.expand(*batch, m, n).reshape(-1, m, n)
    b = B.expand(*batch, m, k).reshape(-1, m, k)
    x = out.view(-1, n, k)
    BLOCK_M = max(triton.next_power_of_2(m), 2)
    BLOCK_N = max(triton.next_power_of_2(n), 2)
    BLOCK_K = max(triton.next_power_of_2(k), 2)
    _lstsq_kernel[(x.shape[0],)](a, b, x, m, n, k, *a.stride(), *b.stride(), *x.stride(),
                                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                 num_warps=8 if BLOCK_M * BLOCK_N >= 4096 else 4)
    return out
