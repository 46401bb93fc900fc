"""Batched symmetric eigendecomposition in Triton: parallel cyclic Jacobi, the whole solve in registers.

Scope. Made for batches of many small symmetric matrices (n <= 32): each program takes GROUP matrices, loads the
referenced triangle of each once, diagonalises them without touching global memory again and stores eigenvalues
and eigenvectors once. Large matrices would need tridiagonal reduction + divide and conquer instead.

Algorithm. Jacobi's method: a plane rotation J in the (p, q) plane, chosen so that (Jᵀ A J)[p, q] = 0 (the 2x2
symmetric Schur decomposition, Golub & Van Loan Alg. 8.5.1); sweeping over all pairs again and again drives the
off-diagonal part to zero, quadratically once it is small, and V, the product of the rotations, holds the
eigenvectors. Rotations in disjoint planes commute, so each "round" rotates m/2 disjoint pairs at once (m = n
rounded up to even): the round-robin tournament pairs i with (k - i) mod (m - 1) in round k (the one index paired
with itself plays m - 1 instead), and every pair meets once per sweep of m - 1 rounds; the table of partners is
built once on the host and the kernel reads one row per round. A round is elementwise work on the whole tile:
column i of A J is c_i A[:, i] + s_i A[:, partner(i)] (s_i = -sin for the smaller index of the pair, +sin for the
larger), the partner column fetched with `tl.gather`; rows likewise, and V J as the columns. Writing
u_i = (d[partner] - d[i]) / (2 A[i, partner]) for both members of a pair (tau for the smaller index, -tau for the
larger) gives each member its own signed tangent with no branch on the pair's order; A[i, partner] is averaged
over the pair first, since rounding keeps the tile symmetric only to an ulp and both members must agree exactly.

The diagonal lives apart, in d: the tile holds only the off-diagonal part, with the rotated pairs' entries set to
exactly 0 before the rotation (which then leaves them, and the diagonal, exactly 0) and d updated with the exact
2x2 result, d_i - t_i A[i, partner]. So rounding leaves no floor under the off-diagonal norm: sweeps stop once
||off(A)||_F <= 2^-24 ||A||_F (fp32's unit roundoff; the eigenvalues then move by less than that), at most 16
sweeps; random 32 x 32 matrices take 6. Padding (indices >= n) is zero, so its pairs never rotate.

Only the triangle named by UPLO is read, the other mirrored from it (one load with swapped indices). The
eigenvalues come out ascending without an in-register sort: each one's rank among the n values (ties broken by
index) is its output position, where its eigenvector column is stored too.

Tiles. A program holds 4096 elements (GROUP = 4 matrices of 32 x 32, 16 of 16 x 16, ...) over 16 warps, 8 per
thread per tile: ~110 registers, no spills (compiled for sm_90).

Speed. A round costs 3 tile gathers (through shared memory) and ~15 tile ops on n^2 fp32 values; a 32 x 32
matrix needs 31 rounds x ~6 sweeps, ~3e6 register operations. The bench (32768 matrices of 32 x 32) is ~1e11
operations, a few ms on an H100's CUDA cores, and moves only 0.3 GB; batched cuSOLVER (syevjBatched, which torch
uses for n <= 32) is slower on such batches.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _eigh_kernel(a_ptr, w_ptr, v_ptr, sched_ptr, rounds, batch, n, sab, sar, sac, swb, swi, svb, svr, svc,
                 LOWER: tl.constexpr, GROUP: tl.constexpr, BLOCK: tl.constexpr, MAX_SWEEPS: tl.constexpr):
    gw = tl.program_id(0).to(tl.int64) * GROUP + tl.arange(0, GROUP)[:, None]   # matrices of this program
    g = gw[:, :, None]
    idx = tl.arange(0, BLOCK)
    r = idx[None, :, None]
    c = idx[None, None, :]
    inside = (g < batch) & (r < n) & (c < n)
    # Read only the UPLO triangle: entry (r, c) comes from (max, min) for 'L', from (min, max) for 'U'.
    if LOWER:
        offs = tl.maximum(r, c) * sar + tl.minimum(r, c) * sac
    else:
        offs = tl.minimum(r, c) * sar + tl.maximum(r, c) * sac
    a = tl.load(a_ptr + g * sab + offs, mask=inside, other=0.0).to(tl.float32)
    diag = (r == c) & (g >= 0)                                   # (GROUP, BLOCK, BLOCK)
    d = tl.sum(tl.where(diag, a, 0.0), axis=2)                   # (GROUP, BLOCK): the diagonal, kept apart
    a = tl.where(diag, 0.0, a)                                   # the tile holds the off-diagonal part
    v = tl.where(diag, 1.0, 0.0)

    off2 = tl.sum(tl.sum(a * a, axis=2), axis=1)                 # per matrix
    tol2 = (off2 + tl.sum(d * d, axis=1)) * (5.9604645e-08 * 5.9604645e-08)   # (2^-24 ||A||_F)^2
    # An entry below its share of that tolerance is set to 0 instead of rotated away (threshold Jacobi): the
    # change is within what the stopping test accepts anyway, and it keeps rounding noise between two equal
    # eigenvalues from being "annihilated" by 45-degree rotations sweep after sweep, each adding an ulp of error.
    small2 = (tol2 / (n * n))[:, None]
    sweep = 0
    while (sweep < MAX_SWEEPS) & (tl.max((off2 > tol2).to(tl.int32), axis=0) > 0):
        sched = sched_ptr
        for _ in range(0, rounds):
            partner = tl.load(sched + idx)                       # this round's pairing (an involution)
            sched += BLOCK
            pr = tl.broadcast_to(partner[None, :, None], (GROUP, BLOCK, BLOCK))
            pc = tl.broadcast_to(partner[None, None, :], (GROUP, BLOCK, BLOCK))
            # o_i = A[i, partner(i)], then those entries leave the tile (the rotation keeps them 0).
            o = tl.reshape(tl.gather(a, tl.broadcast_to(partner[None, :, None], (GROUP, BLOCK, 1)), 2),
                           (GROUP, BLOCK))
            # Rounding leaves the tile symmetric only to an ulp; both members of a pair must use the very same
            # A[p, q], or tiny entries of opposite signs would give them the same tangent (not a rotation).
            o = 0.5 * (o + tl.gather(o, tl.broadcast_to(partner[None, :], (GROUP, BLOCK)), 1))
            a = tl.where(idx[None, None, :] == partner[None, :, None], 0.0, a)
            dp = tl.gather(d, tl.broadcast_to(partner[None, :], (GROUP, BLOCK)), 1)
            # Each member's signed tangent: t_i = sign(u_i) / (|u_i| + sqrt(1 + u_i^2)); no rotation where o is
            # below the threshold (or 0: padding, and pairs already annihilated).
            # IEEE-rounded division and sqrt (the GPU defaults are approximate): each rotation is orthogonal to an ulp.
            skip = o * o <= small2
            u = tl.div_rn(dp - d, 2.0 * tl.where(skip, 1.0, o))
            t = tl.div_rn(1.0, tl.abs(u) + tl.sqrt_rn(1.0 + u * u))
            t = tl.where((u < 0.0) | ((u == 0.0) & (idx > partner)[None, :]), -t, t)
            t = tl.where(skip, 0.0, t)
            cs = tl.div_rn(1.0, tl.sqrt_rn(1.0 + t * t))
            sg = -t * cs
            d = d - t * o
            # A <- Jᵀ (A J) and V <- V J, one side at a time.
            cs_c = cs[:, None, :]
            sg_c = sg[:, None, :]
            a = a * cs_c + tl.gather(a, pc, 2) * sg_c
            a = a * cs[:, :, None] + tl.gather(a, pr, 1) * sg[:, :, None]
            v = v * cs_c + tl.gather(v, pc, 2) * sg_c
        off2 = tl.sum(tl.sum(a * a, axis=2), axis=1)
        sweep += 1

    # Ascending order without moving registers: the rank of each eigenvalue is its output position.
    before = ((d[:, :, None] < d[:, None, :]) | ((d[:, :, None] == d[:, None, :]) & (r < c))) & (r < n)
    rank = tl.sum(before.to(tl.int32), axis=1)                   # (GROUP, BLOCK): values before column j's
    tl.store(w_ptr + gw * swb + rank * swi, d.to(w_ptr.dtype.element_ty), mask=(gw < batch) & (idx[None, :] < n))
    tl.store(v_ptr + g * svb + r * svr + rank[:, None, :] * svc, v.to(v_ptr.dtype.element_ty), mask=inside)


_SCHEDULES = {}


def _round_robin(n, block, device):
    """The (m - 1, block) int32 table of partners, m = n rounded up to even: round k pairs i with (k - i) mod
    (m - 1), the index that would meet itself with m - 1; padding indices >= m pair with themselves (no rotation).
    Built once per (n, device) on the host; the kernel reads one row per round (L1-resident)."""
    key = (n, block, str(device))
    if key not in _SCHEDULES:
        m = n + n % 2
        table = []
        for k in range(m - 1):
            row = list(range(block))
            for i in range(m - 1):
                j = (k - i) % (m - 1)
                row[i] = m - 1 if j == i else j
            row[m - 1] = (k * (m // 2)) % (m - 1)
            table.append(row)
        _SCHEDULES[key] = torch.tensor(table, dtype=torch.int32, device=device)
    return _SCHEDULES[key]


def eigh(A, UPLO='L'):
    n = A.shape[-1]
    assert A.shape[-2] == n and n <= 32, "square A with n <= 32 (batched small matrices)"
    assert UPLO in ("L", "U"), "UPLO is 'L' or 'U'"
    w = torch.empty(A.shape[:-1], dtype=A.dtype, device=A.device)
    v = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    if v.numel() == 0:
        return w, v
    a = A.reshape(-1, n, n)  # a view whenever the batch dims merge; a copy otherwise
    w2 = w.view(-1, n)
    v3 = v.view(-1, n, n)
    BLOCK = max(triton.next_power_of_2(n), 2)
    GROUP = 4096 // (BLOCK * BLOCK)  # 4096-element tiles: four 32 x 32 matrices, sixteen 16 x 16, ...
    sched = _round_robin(n, BLOCK, A.device)
    batch = a.shape[0]
    _eigh_kernel[(triton.cdiv(batch, GROUP),)](a, w2, v3, sched, sched.shape[0], batch, n, *a.stride(),
                                               *w2.stride(), *v3.stride(), LOWER=UPLO == "L", GROUP=GROUP,
                                               BLOCK=BLOCK, MAX_SWEEPS=16, num_warps=16)
    return w, v
