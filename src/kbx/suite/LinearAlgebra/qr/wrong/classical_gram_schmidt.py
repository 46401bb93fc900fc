"""Classical Gram-Schmidt without re-orthogonalisation: column j of A is projected against all earlier columns of
Q at once (r = Qᵀ a_j, q_j = (a_j - Q r) / ||a_j - Q r||). It reconstructs A well, but Q loses orthogonality in
proportion to cond(A)^2: on the ill-conditioned matrices of the workloads ||Qᵀ Q - I|| is of order 1 (1.7e4 to
5e5 times the bound). (A zero column, guarded against division by zero, also leaves a zero column in Q.)"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _cgs_kernel(a_ptr, q_ptr, r_ptr, m, n, sab, sar, sac, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < m) & (cols[None, :] < n)
    a = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=inside, other=0.0)
    a = a.to(tl.float32)
    q = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    r = tl.zeros((BLOCK_N, BLOCK_N), dtype=tl.float32)  # R transposed: lane j of row j holds R[:, j]
    rrows = tl.arange(0, BLOCK_N)
    for j in range(0, n):
        aj = tl.sum(tl.where(cols[None, :] == j, a, 0.0), axis=1)
        coef = tl.sum(q * aj[:, None], axis=0)  # Qᵀ a_j against the original column: classical GS
        coef = tl.where(cols < j, coef, 0.0)
        v = aj - tl.sum(q * coef[None, :], axis=1)
        rjj = tl.sqrt(tl.sum(v * v, axis=0))
        qj = tl.where(rjj > 0.0, v / tl.maximum(rjj, 1e-30), 0.0)
        q = tl.where(cols[None, :] == j, qj[:, None], q)
        rcol = tl.where(cols == j, rjj, coef)
        r = tl.where(rrows[:, None] == j, rcol[None, :], r)
    tl.store(q_ptr + b * m * n + rows[:, None] * n + cols[None, :], q, mask=inside)
    # r holds R transposed (row j = column j of R): store it back transposed.
    tl.store(r_ptr + b * n * n + cols[None, :] * n + rrows[:, None], r,
             mask=(rrows[:, None] < n) & (cols[None, :] < n))


def qr(A, mode='reduced'):
    m, n = A.shape[-2], A.shape[-1]
    assert mode == "reduced" and m >= n and m <= 64, "tall matrices, reduced mode"
    q = torch.empty((*A.shape[:-2], m, n), dtype=A.dtype, device=A.device)
    r = torch.empty((*A.shape[:-2], n, n), dtype=A.dtype, device=A.device)
    a = A.reshape(-1, m, n)
    BLOCK_M = max(triton.next_power_of_2(m), 16)
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    _cgs_kernel[(a.shape[0],)](a, q, r, m, n, *a.stride(), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return q, r
