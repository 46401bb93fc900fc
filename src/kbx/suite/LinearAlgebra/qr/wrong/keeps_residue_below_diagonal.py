"""Stores the working matrix W as R without clearing what lies below the diagonal: after the reflections those
entries are rounding residue (about eps ||A||), not zeros, so R is not upper triangular and every matrix fails the
exact-zero triangularity check. (LAPACK's geqrf keeps the reflectors there; R must be extracted with zeros.)"""


import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _qr_kernel(a_ptr, q_ptr, r_ptr, m, n, k, kq, kr, sab, sar, sac,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_Q: tl.constexpr, WANT_Q: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < m) & (cols[None, :] < n)
    w = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=inside, other=0.0)
    w = w.to(tl.float32)
    vs = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)  # column j holds the reflector vector v_j
    ss = tl.zeros((BLOCK_N,), dtype=tl.float32)  # lane j holds s_j = 2 / v_jᵀ v_j

    # ----- factor: k Householder reflections applied to W in registers --------------------------------------
    for j in range(0, k):
        x = tl.sum(tl.where(cols[None, :] == j, w, 0.0), axis=1)
        x = tl.where(rows >= j, x, 0.0)  # rows above j belong to R already
        alpha = tl.sum(tl.where(rows == j, x, 0.0), axis=0)
        norm = tl.sqrt(tl.sum(x * x, axis=0))
        beta = tl.where(alpha >= 0.0, -norm, norm)
        v = tl.where(rows == j, x - beta, x)
        vtv = tl.sum(v * v, axis=0)
        s = tl.where(vtv > 0.0, 2.0 / tl.maximum(vtv, 1e-30), 0.0)
        proj = tl.sum(v[:, None] * w, axis=0)  # vᵀ W, one number per column
        w = w - (s * v)[:, None] * proj[None, :]
        vs = tl.where(cols[None, :] == j, v[:, None], vs)
        ss = tl.where(cols == j, s, ss)

    # ----- R: the upper trapezoid of W, as W stands ----------------------------------------------------------
    r_tile = w
    r_mask = (rows[:, None] < kr) & (cols[None, :] < n)
    tl.store(r_ptr + b * kr * n + rows[:, None] * n + cols[None, :], r_tile.to(r_ptr.dtype.element_ty),
             mask=r_mask)

    # ----- Q = H_0 ... H_{k-1} E, accumulated backwards ------------------------------------------------------
    if WANT_Q:
        qcols = tl.arange(0, BLOCK_Q)
        q = tl.where((rows[:, None] == qcols[None, :]) & (qcols[None, :] < kq), 1.0, 0.0)
        for step in range(0, k):
            j = k - 1 - step
            v = tl.sum(tl.where(cols[None, :] == j, vs, 0.0), axis=1)
            s = tl.sum(tl.where(cols == j, ss, 0.0), axis=0)
            proj = tl.sum(v[:, None] * q, axis=0)
            q = q - (s * v)[:, None] * proj[None, :]
        q_mask = (rows[:, None] < m) & (qcols[None, :] < kq)
        tl.store(q_ptr + b * m * kq + rows[:, None] * kq + qcols[None, :], q.to(q_ptr.dtype.element_ty),
                 mask=q_mask)


def qr(A, mode='reduced'):
    assert mode in ("reduced", "complete", "r"), f"unknown mode {mode!r}"
    m, n = A.shape[-2], A.shape[-1]
    assert m <= 64 and n <= 64, "small matrices only (m, n <= 64): one matrix per program, in registers"
    k = min(m, n)
    kq = m if mode == "complete" else k  # columns of Q
    kr = m if mode == "complete" else k  # rows of R
    batch = A.shape[:-2]
    want_q = mode != "r"
    r = torch.empty((*batch, kr, n), dtype=A.dtype, device=A.device)
    q = torch.empty((*batch, m, kq) if want_q else (0,), dtype=A.dtype, device=A.device)
    a = A.reshape(-1, m, n)  # a view whenever the batch dims merge; a copy otherwise
    if a.shape[0] == 0 or r.numel() == 0 and q.numel() == 0:
        return q, r
    BLOCK_M = max(triton.next_power_of_2(m), 16)
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    BLOCK_Q = max(triton.next_power_of_2(kq), 16)
    # About 16 elements of each register tile per thread: 1 warp for 16 x 16, 4 for 64 x 32, 8 for 64 x 64.
    num_warps = min(max(BLOCK_M * BLOCK_N // 512, 1), 8)
    _qr_kernel[(a.shape[0],)](a, q if want_q else r, r, m, n, k, kq, kr, *a.stride(),
                              BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_Q=BLOCK_Q, WANT_Q=want_q,
                              num_warps=num_warps)
    return q, r
