"""Wrong: a fixed two sweeps of one-sided Jacobi, without a convergence test. The columns are then still far
from orthogonal (Jacobi converges quadratically only once they are nearly so; random 32 x 32 matrices need 6-8
sweeps in fp32), so their norms are not yet the singular values."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _svdvals_kernel(a_ptr, s_ptr, sched_ptr, rounds, batch, R, C, sab, sar, sac, ssb, ssi, tol2,
                    GROUP: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr, MAX_SWEEPS: tl.constexpr):
    gw = tl.program_id(0).to(tl.int64) * GROUP + tl.arange(0, GROUP)[:, None]   # matrices of this program
    g = gw[:, :, None]
    idx = tl.arange(0, BC)
    rows = tl.arange(0, BR)[None, :, None]
    cols = idx[None, None, :]
    inside = (g < batch) & (rows < R) & (cols < C)
    a = tl.load(a_ptr + g * sab + rows * sar + cols * sac, mask=inside, other=0.0).to(tl.float32)
    alpha = tl.sum(a * a, axis=1)                                  # (GROUP, BC): squared column norms
    floor = tl.sum(alpha, axis=1)[:, None] * (1.4210855e-14 * 0.5)    # (2^-23)^2 ||A||_F^2 / 2 per matrix

    for _sweep in range(0, 2):   # "one-sided Jacobi converges fast: two sweeps"
        late = tl.zeros((GROUP, BC), dtype=tl.int32)               # pairs still far from orthogonal
        sched = sched_ptr
        for _ in range(0, rounds):
            partner = tl.load(sched + idx)                         # this round's pairing (an involution)
            sched += BC
            partner2 = tl.broadcast_to(partner[None, :], (GROUP, BC))
            ap = tl.gather(a, tl.broadcast_to(partner[None, None, :], (GROUP, BR, BC)), 2)
            gamma = tl.sum(a * ap, axis=1)
            gamma = 0.5 * (gamma + tl.gather(gamma, partner2, 1))  # the very same value for both members
            beta = tl.gather(alpha, partner2, 1)
            g2 = gamma * gamma
            late = tl.where((g2 > tol2 * alpha * beta) & (g2 > floor * (alpha + beta)), 1, late)
            # Each member's signed tangent: t_i = sign(u_i) / (|u_i| + sqrt(1 + u_i^2)); no rotation where gamma == 0.
            # IEEE-rounded division and sqrt (the GPU defaults are approximate): each rotation is orthogonal to an ulp.
            skip = gamma == 0.0
            u = tl.div_rn(beta - alpha, 2.0 * tl.where(skip, 1.0, gamma))
            t = tl.div_rn(1.0, tl.abs(u) + tl.sqrt_rn(1.0 + u * u))
            t = tl.where((u < 0.0) | ((u == 0.0) & (idx > partner)[None, :]), -t, t)
            t = tl.where(skip, 0.0, t)
            cs = tl.div_rn(1.0, tl.sqrt_rn(1.0 + t * t))
            a = a * cs[:, None, :] - ap * (t * cs)[:, None, :]
            alpha = alpha - t * gamma
        alpha = tl.sum(a * a, axis=1)

    # Descending order without moving registers: the rank of each value is its output position.
    sv = tl.sqrt(alpha)
    before = ((sv[:, :, None] > sv[:, None, :]) |
              ((sv[:, :, None] == sv[:, None, :]) & (idx[None, :, None] < cols))) & (idx[None, :, None] < C)
    rank = tl.sum(before.to(tl.int32), axis=1)                     # (GROUP, BC): values before column j's
    tl.store(s_ptr + gw * ssb + rank * ssi, sv.to(s_ptr.dtype.element_ty), mask=(gw < batch) & (idx[None, :] < C))


_SCHEDULES = {}


def _round_robin(k, block, device):
    """The (k' - 1, block) int32 table of partners, k' = k rounded up to even: round r pairs i with (r - i) mod
    (k' - 1), the index that would meet itself with k' - 1; padding indices >= k' pair with themselves (no
    rotation). Built once per (k, device) on the host; the kernel reads one row per round (L1-resident)."""
    key = (k, block, str(device))
    if key not in _SCHEDULES:
        m = k + k % 2
        table = []
        for r in range(m - 1):
            row = list(range(block))
            for i in range(m - 1):
                j = (r - i) % (m - 1)
                row[i] = m - 1 if j == i else j
            row[m - 1] = (r * (m // 2)) % (m - 1)
            table.append(row)
        _SCHEDULES[key] = torch.tensor(table, dtype=torch.int32, device=device)
    return _SCHEDULES[key]


def svdvals(A):
    m, n = A.shape[-2], A.shape[-1]
    assert max(m, n) <= 64, "both sides <= 64 (batched small matrices)"
    k = min(m, n)
    out = torch.empty((*A.shape[:-2], k), dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.reshape(-1, m, n)  # a view whenever the batch dims merge; a copy otherwise
    s = out.view(-1, k)
    sab, sar, sac = a.stride()
    if m < n:  # work on Aᵀ: its columns run along the shorter side
        sar, sac = sac, sar
    R = max(m, n)
    BR = max(triton.next_power_of_2(R), 2)
    BC = max(triton.next_power_of_2(k), 2)
    GROUP = max(4096 // (BR * BC), 1)  # 4096-element tiles: four 32 x 32 matrices, eight 32 x 16, ...
    sched = _round_robin(k, BC, A.device)
    batch = a.shape[0]
    _svdvals_kernel[(triton.cdiv(batch, GROUP),)](a, s, sched, sched.shape[0], batch, R, k, sab, sar, sac,
                                                  *s.stride(), (2.0 ** -23) ** 2 * R, GROUP=GROUP, BR=BR,
                                                  BC=BC, MAX_SWEEPS=20, num_warps=8)
    return out
