"""An honest lstsq as a third party writes it: modified Gram-Schmidt on the augmented matrix [A | B], then R X = Z.

One program per system holds A and B in registers. Step j normalises the current column j of A,
q_j = a_j / r_jj with r_jj = ||a_j||, takes r_jc = q_jᵀ a_c for the later columns of A and z_j = q_jᵀ B for the
right-hand sides (against the columns as already updated: modified, not classical, Gram-Schmidt) and subtracts
q_j r_jc and q_j z_j from them. Carrying B along as extra columns makes MGS a backward-stable least-squares solver
(Björck), although Q itself is never used or stored. The solution then follows from R X = Z by back substitution.
It differs from the suite's solution, which applies Householder reflections to A and B.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mgs_lstsq(a_ptr, b_ptr, x_ptr, m, n, k, sab, sar, sac, sbb, sbr, sbc,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    s = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rn = tl.arange(0, BN)
    w = tl.load(a_ptr + s * sab + rows[:, None] * sar + cols[None, :] * sac,
                mask=(rows[:, None] < m) & (cols[None, :] < n), other=0.0).to(tl.float32)
    y = tl.load(b_ptr + s * sbb + rows[:, None] * sbr + rk[None, :] * sbc,
                mask=(rows[:, None] < m) & (rk[None, :] < k), other=0.0).to(tl.float32)
    R = tl.zeros((BN, BN), dtype=tl.float32)
    Z = tl.zeros((BN, BK), dtype=tl.float32)
    for j in range(0, n):
        a_j = tl.sum(tl.where(cols[None, :] == j, w, 0.0), axis=1)
        r_jj = tl.sqrt(tl.sum(a_j * a_j, axis=0))
        q = a_j / r_jj
        coef = tl.where(cols > j, tl.sum(q[:, None] * w, axis=0), 0.0)
        w = w - q[:, None] * coef[None, :]
        z = tl.sum(q[:, None] * y, axis=0)
        y = y - q[:, None] * z[None, :]
        R = tl.where(rn[:, None] == j, tl.where(cols == j, r_jj, coef)[None, :], R)
        Z = tl.where(rn[:, None] == j, z[None, :], Z)
    X = tl.zeros((BN, BK), dtype=tl.float32)
    for t in range(0, n):
        i = n - 1 - t
        r_i = tl.sum(tl.where(rn[:, None] == i, R, 0.0), axis=0)
        r_ii = tl.sum(tl.where(cols == i, r_i, 0.0), axis=0)
        z_i = tl.sum(tl.where(rn[:, None] == i, Z, 0.0), axis=0)
        x_i = (z_i - tl.sum(tl.where(cols > i, r_i, 0.0)[:, None] * X, axis=0)) / r_ii
        X = tl.where(rn[:, None] == i, x_i[None, :], X)
    tl.store(x_ptr + s * n * k + rn[:, None] * k + rk[None, :], X.to(x_ptr.dtype.element_ty),
             mask=(rn[:, None] < n) & (rk[None, :] < k))


def lstsq(A, B, rcond=None, driver=None):
    m, n, k = A.shape[-2], A.shape[-1], B.shape[-1]
    batch = torch.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    out = torch.empty((*batch, n, k), dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.expand(*batch, m, n).reshape(-1, m, n)
    b = B.expand(*batch, m, k).reshape(-1, m, k)
    BM = max(16, triton.next_power_of_2(m))
    BN = max(16, triton.next_power_of_2(n))
    BK = max(16, triton.next_power_of_2(k))
    _mgs_lstsq[(a.shape[0],)](a, b, out, m, n, k, *a.stride(), *b.stride(), BM=BM, BN=BN, BK=BK,
                              num_warps=8 if BM * BN >= 4096 else 4)
    return out
