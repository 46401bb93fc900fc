"""Modified Gram-Schmidt (one pass, no re-orthogonalisation): column j is orthogonalised against q_0, q_1, ...
one at a time, each projection taken from the already-updated vector. Better than classical Gram-Schmidt, but Q
still loses orthogonality in proportion to cond(A) (about eps * cond): on the ill-conditioned matrices (cond 1e4
to 1e6) ||Qᵀ Q - I|| reaches 5e-4 to 1e-1, 9 to 1,800 times the 8 max(m, n) eps bound that Householder QR meets.
(A zero column, guarded against division by zero, also leaves a zero column in Q.)"""


import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _mgs_kernel(a_ptr, q_ptr, r_ptr, m, n, sab, sar, sac, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
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
        v = aj
        coef = tl.zeros((BLOCK_N,), dtype=tl.float32)
        for i in range(0, j):  # project out q_i from the updated v: modified GS
            qi = tl.sum(tl.where(cols[None, :] == i, q, 0.0), axis=1)
            c = tl.sum(qi * v, axis=0)
            v = v - c * qi
            coef = tl.where(cols == i, c, coef)
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
    _mgs_kernel[(a.shape[0],)](a, q, r, m, n, *a.stride(), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return q, r
