"""An honest eigh as a third party writes it: serial cyclic Jacobi with a threshold, one pair at a time.

Each program takes BB matrices (independent problems side by side on a leading block axis, at most 4096 entries
of A per program), builds each symmetric matrix from the UPLO triangle (the triangle loaded once and mirrored with
a transpose) and holds them and their V (initially I) in registers. A sweep visits every pair p < q in row-cyclic
order; in each matrix where |a_pq| exceeds u ||A||_F (u = 2^-24: smaller entries are rounding noise, and leaving
them changes no eigenvalue by more than n u ||A||_F) it applies the 2x2 symmetric Schur rotation of Golub and Van
Loan (tau = (a_qq - a_pp) / (2 a_pq), t = sign(tau) / (|tau| + sqrt(1 + tau^2)), c = 1 / sqrt(1 + t^2), s = t c)
to rows p and q of A (written to the matching columns too, so A stays exactly symmetric) and to columns p and q of
V, with the exact 2x2 result (a_pp - t a_pq, a_qq + t a_pq, zeros) in its block; a matrix below the threshold
gets the identity (c = 1, s = t = 0, which leaves its rows exactly as they are), and the step is skipped when no
matrix of the block needs it. Sweeps stop after one without a rotation in any matrix of the block, or after 20.
The eigenvalues and their vectors are written in ascending order by repeated selection of the smallest remaining
diagonal entry. It differs from the suite's solution, which rotates n/2 disjoint pairs at once (round-robin),
keeps the diagonal apart and ranks the values in one step.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _jacobi_eigh(a_ptr, w_ptr, v_ptr, nb, n, sab, sar, sac, LOWER: tl.constexpr, MAX_SWEEPS: tl.constexpr,
                 BB: tl.constexpr, BN: tl.constexpr):
    mats = tl.program_id(0) * BB + tl.arange(0, BB)
    b_ok = mats < nb
    m64 = mats.to(tl.int64)
    c = tl.arange(0, BN)
    r3 = c[None, :, None]
    c3 = c[None, None, :]
    c2 = c[None, :]
    inside = (r3 < n) & (c3 < n) & b_ok[:, None, None]
    if LOWER:
        tri = inside & (r3 >= c3)
    else:
        tri = inside & (r3 <= c3)
    half = tl.load(a_ptr + m64[:, None, None] * sab + r3 * sar + c3 * sac, mask=tri, other=0.0).to(tl.float32)
    a = tl.where(r3 == c3, half, half + tl.permute(half, (0, 2, 1)))
    v = tl.where((r3 == c3) & inside, 1.0, 0.0)
    thresh = 5.9604645e-08 * tl.sqrt(tl.sum(tl.sum(a * a, axis=2), axis=1))
    rotated = 1
    sweep = 0
    while (rotated > 0) & (sweep < MAX_SWEEPS):
        rotated = 0
        for p in range(0, n - 1):
            rp3 = r3 == p
            cp3 = c3 == p
            cp2 = c2 == p
            row_p = tl.sum(tl.where(rp3, a, 0.0), axis=1)
            for q in range(p + 1, n):
                cq2 = c2 == q
                apq = tl.sum(tl.where(cq2, row_p, 0.0), axis=1)
                do = tl.abs(apq) > thresh
                n_do = tl.sum(do.to(tl.int32), axis=0)
                if n_do > 0:
                    cq3 = c3 == q
                    row_q = tl.sum(tl.where(r3 == q, a, 0.0), axis=1)
                    app = tl.sum(tl.where(cp2, row_p, 0.0), axis=1)
                    aqq = tl.sum(tl.where(cq2, row_q, 0.0), axis=1)
                    tau = (aqq - app) / (2.0 * tl.where(do, apq, 1.0))
                    t = 1.0 / (tl.abs(tau) + tl.sqrt(1.0 + tau * tau))
                    t = tl.where(do, tl.where(tau < 0.0, -t, t), 0.0)
                    cs = 1.0 / tl.sqrt(1.0 + t * t)
                    sn = t * cs
                    # Rows p and q of Jᵀ A J, with the 2x2 block's exact result; columns p and q are the same
                    # vectors (A stays exactly symmetric).
                    cs2 = cs[:, None]
                    sn2 = sn[:, None]
                    new_p = cs2 * row_p - sn2 * row_q
                    new_q = sn2 * row_p + cs2 * row_q
                    new_p = tl.where(cp2, (app - t * apq)[:, None], tl.where(cq2 & do[:, None], 0.0, new_p))
                    new_q = tl.where(cq2, (aqq + t * apq)[:, None], tl.where(cp2 & do[:, None], 0.0, new_q))
                    a = tl.where(rp3, new_p[:, None, :], tl.where(r3 == q, new_q[:, None, :], a))
                    a = tl.where(cp3, new_p[:, :, None], tl.where(cq3, new_q[:, :, None], a))
                    vp = tl.sum(tl.where(cp3, v, 0.0), axis=2)
                    vq = tl.sum(tl.where(cq3, v, 0.0), axis=2)
                    v = tl.where(cp3, (cs2 * vp - sn2 * vq)[:, :, None],
                                 tl.where(cq3, (sn2 * vp + cs2 * vq)[:, :, None], v))
                    row_p = new_p
                    rotated += n_do
        sweep += 1
    d = tl.sum(tl.where(r3 == c3, a, 0.0), axis=1)
    d = tl.where(c2 < n, d, float("inf"))
    for j in range(0, n):
        low = tl.argmin(d, axis=1)
        tl.store(w_ptr + m64 * n + j, tl.min(d, axis=1).to(w_ptr.dtype.element_ty), mask=b_ok)
        vec = tl.sum(tl.where(c3 == low[:, None, None], v, 0.0), axis=2)
        tl.store(v_ptr + m64[:, None] * n * n + c2 * n + j, vec.to(v_ptr.dtype.element_ty),
                 mask=b_ok[:, None] & (c2 < n))
        d = tl.where(c2 == low[:, None], float("inf"), d)


def eigh(A, UPLO="L"):
    n = A.shape[-1]
    w = torch.empty(A.shape[:-1], dtype=A.dtype, device=A.device)
    v = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    if v.numel() == 0:
        return w, v
    a = A.reshape(-1, n, n)
    nb = a.shape[0]
    BN = max(16, triton.next_power_of_2(n))
    BB = min(triton.next_power_of_2(nb), max(1, 4096 // (BN * BN)))
    _jacobi_eigh[(triton.cdiv(nb, BB),)](a, w, v, nb, n, *a.stride(), LOWER=UPLO == "L", MAX_SWEEPS=20,
                                         BB=BB, BN=BN)
    return w, v
