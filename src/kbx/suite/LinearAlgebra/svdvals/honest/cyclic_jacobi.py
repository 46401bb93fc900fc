"""An honest svdvals as a third party writes it: serial cyclic one-sided Jacobi, one column pair at a time.

Each program takes BB matrices (independent problems side by side on a leading block axis, at most 8192 entries
per program) and holds them in registers, columns along the shorter side (a wide matrix is read transposed through
its strides: Aᵀ has the same singular values). A sweep visits every pair p < q in row-cyclic order; for each it
takes the two columns of every matrix, their squared norms alpha, beta and their dot product gamma, and in each
matrix where |gamma| > sqrt(R) eps sqrt(alpha beta) (R the long side, eps = 2^-23, the threshold of LAPACK's
sgesvj) applies the Rutishauser rotation that makes them orthogonal (zeta = (beta - alpha) / (2 gamma), t =
sign(zeta) / (|zeta| + sqrt(1 + zeta^2)), c = 1 / sqrt(1 + t^2), s = c t); a matrix below the threshold gets the
identity (c = 1, s = 0, which leaves its columns exactly as they are), and the step is skipped when no matrix of
the block needs it. Sweeps stop after one without a rotation in any matrix of the block, or after 30. The
singular values are the final column norms, written out in descending order by repeated selection of the largest
remaining one. It differs from the suite's solution, which rotates k/2 disjoint pairs at once in a round-robin
order and ranks the values in one step.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cyclic_jacobi(a_ptr, s_ptr, nb, R, C, sab, sar, sac, tol, MAX_SWEEPS: tl.constexpr,
                   BB: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    mats = tl.program_id(0) * BB + tl.arange(0, BB)
    b_ok = mats < nb
    m64 = mats.to(tl.int64)
    rows = tl.arange(0, BR)[None, :, None]
    cols = tl.arange(0, BC)
    c3 = cols[None, None, :]
    c2 = cols[None, :]
    w = tl.load(a_ptr + m64[:, None, None] * sab + rows * sar + c3 * sac,
                mask=b_ok[:, None, None] & (rows < R) & (c3 < C), other=0.0).to(tl.float32)
    rotated = 1
    sweep = 0
    while (rotated > 0) & (sweep < MAX_SWEEPS):
        rotated = 0
        for p in range(0, C - 1):
            cp3 = c3 == p
            ap = tl.sum(tl.where(cp3, w, 0.0), axis=2)
            for q in range(p + 1, C):
                cq3 = c3 == q
                aq = tl.sum(tl.where(cq3, w, 0.0), axis=2)
                alpha = tl.sum(ap * ap, axis=1)
                beta = tl.sum(aq * aq, axis=1)
                gamma = tl.sum(ap * aq, axis=1)
                do = tl.abs(gamma) > tol * tl.sqrt(alpha * beta)
                n_do = tl.sum(do.to(tl.int32), axis=0)
                if n_do > 0:
                    zeta = (beta - alpha) / (2.0 * tl.where(do, gamma, 1.0))
                    t = 1.0 / (tl.abs(zeta) + tl.sqrt(1.0 + zeta * zeta))
                    t = tl.where(do, tl.where(zeta < 0.0, -t, t), 0.0)
                    c = 1.0 / tl.sqrt(1.0 + t * t)
                    s = (c * t)[:, None]
                    c = c[:, None]
                    new_p = c * ap - s * aq
                    w = tl.where(cp3, new_p[:, :, None], tl.where(cq3, (s * ap + c * aq)[:, :, None], w))
                    ap = new_p
                    rotated += n_do
        sweep += 1
    sv = tl.sqrt(tl.sum(w * w, axis=1))
    sv = tl.where(c2 < C, sv, -1.0)
    for j in range(0, C):
        top = tl.argmax(sv, axis=1)
        tl.store(s_ptr + m64 * C + j, tl.max(sv, axis=1).to(s_ptr.dtype.element_ty), mask=b_ok)
        sv = tl.where(c2 == top[:, None], -1.0, sv)


def svdvals(A):
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    out = torch.empty((*A.shape[:-2], k), dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.reshape(-1, m, n)
    nb = a.shape[0]
    sab, sar, sac = a.stride()
    if m < n:
        sar, sac = sac, sar
    R = max(m, n)
    BR = max(16, triton.next_power_of_2(R))
    BC = max(16, triton.next_power_of_2(k))
    BB = min(triton.next_power_of_2(nb), max(1, 8192 // (BR * BC)))
    _cyclic_jacobi[(triton.cdiv(nb, BB),)](a, out, nb, R, k, sab, sar, sac, float(R) ** 0.5 * 2.0 ** -23,
                                           MAX_SWEEPS=30, BB=BB, BR=BR, BC=BC)
    return out
