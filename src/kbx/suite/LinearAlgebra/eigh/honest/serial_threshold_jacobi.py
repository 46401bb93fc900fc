"""An honest eigh as a third party writes it: serial cyclic Jacobi with a threshold, one pair at a time.

One program per matrix builds the symmetric matrix from the UPLO triangle (the triangle loaded once and mirrored
with `tl.trans`) and holds it and V (initially I) in registers. A sweep visits every pair p < q in row-cyclic
order; where |a_pq| exceeds u ||A||_F (u = 2^-24: smaller entries are rounding noise, and leaving them changes no
eigenvalue by more than n u ||A||_F) it applies the 2x2 symmetric Schur rotation of Golub and Van Loan
(tau = (a_qq - a_pp) / (2 a_pq), t = sign(tau) / (|tau| + sqrt(1 + tau^2)), c = 1 / sqrt(1 + t^2), s = t c) to
rows p and q of A (written to the matching columns too, so A stays exactly symmetric) and to columns p and q of
V, with the exact 2x2 result (a_pp - t a_pq, a_qq + t a_pq, zeros) in its block. Sweeps stop after one without a
rotation, or after 20. The eigenvalues and their vectors are written in ascending order by repeated selection of
the smallest remaining diagonal entry. It differs from the
suite's solution, which rotates n/2 disjoint pairs at once (round-robin), several matrices per program, keeps the
diagonal apart and ranks the values in one step.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _jacobi_eigh(a_ptr, w_ptr, v_ptr, n, sab, sar, sac, LOWER: tl.constexpr, MAX_SWEEPS: tl.constexpr,
                 BN: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, BN)
    c = tl.arange(0, BN)
    inside = (r[:, None] < n) & (c[None, :] < n)
    if LOWER:
        tri = inside & (r[:, None] >= c[None, :])
    else:
        tri = inside & (r[:, None] <= c[None, :])
    half = tl.load(a_ptr + b * sab + r[:, None] * sar + c[None, :] * sac, mask=tri, other=0.0).to(tl.float32)
    a = tl.where(r[:, None] == c[None, :], half, half + tl.trans(half))
    v = tl.where((r[:, None] == c[None, :]) & inside, 1.0, 0.0)
    thresh = 5.9604645e-08 * tl.sqrt(tl.sum(tl.sum(a * a, axis=1), axis=0))
    rotated = 1
    sweep = 0
    while (rotated > 0) & (sweep < MAX_SWEEPS):
        rotated = 0
        for p in range(0, n - 1):
            row_p = tl.sum(tl.where(r[:, None] == p, a, 0.0), axis=0)
            for q in range(p + 1, n):
                apq = tl.sum(tl.where(c == q, row_p, 0.0), axis=0)
                if tl.abs(apq) > thresh:
                    row_q = tl.sum(tl.where(r[:, None] == q, a, 0.0), axis=0)
                    app = tl.sum(tl.where(c == p, row_p, 0.0), axis=0)
                    aqq = tl.sum(tl.where(c == q, row_q, 0.0), axis=0)
                    tau = (aqq - app) / (2.0 * apq)
                    t = 1.0 / (tl.abs(tau) + tl.sqrt(1.0 + tau * tau))
                    t = tl.where(tau < 0.0, -t, t)
                    cs = 1.0 / tl.sqrt(1.0 + t * t)
                    sn = t * cs
                    # Rows p and q of Jᵀ A J, with the 2x2 block's exact result; columns p and q are the same
                    # vectors (A stays exactly symmetric).
                    new_p = cs * row_p - sn * row_q
                    new_q = sn * row_p + cs * row_q
                    new_p = tl.where(c == p, app - t * apq, tl.where(c == q, 0.0, new_p))
                    new_q = tl.where(c == q, aqq + t * apq, tl.where(c == p, 0.0, new_q))
                    a = tl.where(r[:, None] == p, new_p[None, :], tl.where(r[:, None] == q, new_q[None, :], a))
                    a = tl.where(c[None, :] == p, new_p[:, None], tl.where(c[None, :] == q, new_q[:, None], a))
                    vp = tl.sum(tl.where(c[None, :] == p, v, 0.0), axis=1)
                    vq = tl.sum(tl.where(c[None, :] == q, v, 0.0), axis=1)
                    v = tl.where(c[None, :] == p, (cs * vp - sn * vq)[:, None], v)
                    v = tl.where(c[None, :] == q, (sn * vp + cs * vq)[:, None], v)
                    row_p = new_p
                    rotated += 1
        sweep += 1
    d = tl.sum(tl.where(r[:, None] == c[None, :], a, 0.0), axis=0)
    d = tl.where(c < n, d, float("inf"))
    for j in range(0, n):
        low = tl.argmin(d, axis=0)
        val = tl.min(d, axis=0)
        tl.store(w_ptr + b * n + j + c, tl.where(c == 0, val, 0.0).to(w_ptr.dtype.element_ty), mask=c == 0)
        vec = tl.sum(tl.where(c[None, :] == low, v, 0.0), axis=1)
        tl.store(v_ptr + b * n * n + r * n + j, vec.to(v_ptr.dtype.element_ty), mask=r < n)
        d = tl.where(c == low, float("inf"), d)


def eigh(A, UPLO="L"):
    n = A.shape[-1]
    w = torch.empty(A.shape[:-1], dtype=A.dtype, device=A.device)
    v = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    if v.numel() == 0:
        return w, v
    a = A.reshape(-1, n, n)
    _jacobi_eigh[(a.shape[0],)](a, w, v, n, *a.stride(), LOWER=UPLO == "L", MAX_SWEEPS=20,
                                BN=max(16, triton.next_power_of_2(n)))
    return w, v
