"""An honest qr as a third party writes it: Givens rotations in registers, Q accumulated as a product of rotations.

One program per matrix holds A (and, unless mode='r', an m x m accumulator G, initially the identity) in
registers. For each column j it zeroes the entries below the diagonal one at a time: the rotation of rows j and i
with c = a / r, s = b / r, r = sqrt(a^2 + b^2) (a = W[j, j], b = W[i, j]) maps (a, b) to (r, 0); it is applied to
the whole of both rows of W and of G, and W[i, j] is then set to exactly 0. A pair that is already (0, 0) gets
the identity. At the end G = Qᵀ, so Q's columns are G's rows, written through transposed indices, and R is W's
upper trapezoid. It differs from the suite's solution, which uses Householder reflections (rank-1 updates of the
whole trailing matrix, Q accumulated backwards). Modes 'reduced', 'complete' and 'r' as torch.linalg.qr.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _givens_qr(a_ptr, q_ptr, r_ptr, m, n, k, kq, kr, sab, sar, sac,
               BM: tl.constexpr, BN: tl.constexpr, WANT_Q: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    gcols = tl.arange(0, BM)
    w = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac,
                mask=(rows[:, None] < m) & (cols[None, :] < n), other=0.0).to(tl.float32)
    r2 = rows[:, None]
    g = tl.where(r2 == gcols[None, :], 1.0, 0.0)
    for j in range(0, k):
        on_j = r2 == j
        col_j = cols == j
        wj = tl.sum(tl.where(on_j, w, 0.0), axis=0)
        gj = tl.sum(tl.where(on_j, g, 0.0), axis=0)
        for i in range(j + 1, m):
            on_i = r2 == i
            wi = tl.sum(tl.where(on_i, w, 0.0), axis=0)
            a = tl.sum(tl.where(col_j, wj, 0.0), axis=0)
            bb = tl.sum(tl.where(col_j, wi, 0.0), axis=0)
            r = tl.sqrt(a * a + bb * bb)
            nz = r > 0.0
            r_safe = tl.where(nz, r, 1.0)
            c = tl.where(nz, a / r_safe, 1.0)
            s = tl.where(nz, bb / r_safe, 0.0)
            new_wj = c * wj + s * wi
            new_wi = tl.where(col_j, 0.0, c * wi - s * wj)
            wj = new_wj
            w = tl.where(on_i, new_wi[None, :], w)
            if WANT_Q:
                gi = tl.sum(tl.where(on_i, g, 0.0), axis=0)
                new_gj = c * gj + s * gi
                g = tl.where(on_i, (c * gi - s * gj)[None, :], g)
                gj = new_gj
        w = tl.where(on_j, wj[None, :], w)
        if WANT_Q:
            g = tl.where(on_j, gj[None, :], g)
    r_tile = tl.where(cols[None, :] >= rows[:, None], w, 0.0)
    tl.store(r_ptr + b * kr * n + rows[:, None] * n + cols[None, :], r_tile.to(r_ptr.dtype.element_ty),
             mask=(rows[:, None] < kr) & (cols[None, :] < n))
    if WANT_Q:
        # Q[p, q] = G[q, p]: row index of G is the column of Q.
        tl.store(q_ptr + b * m * kq + gcols[None, :] * kq + rows[:, None], g.to(q_ptr.dtype.element_ty),
                 mask=(rows[:, None] < kq) & (gcols[None, :] < m))


def qr(A, mode="reduced"):
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    kq = m if mode == "complete" else k
    kr = m if mode == "complete" else k
    batch = A.shape[:-2]
    want_q = mode != "r"
    r = torch.empty((*batch, kr, n), dtype=A.dtype, device=A.device)
    q = torch.empty((*batch, m, kq) if want_q else (0,), dtype=A.dtype, device=A.device)
    a = A.reshape(-1, m, n)
    if a.shape[0] == 0 or (r.numel() == 0 and q.numel() == 0):
        return q, r
    BM = max(16, triton.next_power_of_2(m))
    BN = max(16, triton.next_power_of_2(n))
    _givens_qr[(a.shape[0],)](a, q if want_q else r, r, m, n, k, kq, kr, *a.stride(), BM=BM, BN=BN,
                              WANT_Q=want_q)
    return q, r
