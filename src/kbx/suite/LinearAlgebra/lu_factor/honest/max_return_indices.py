"""An honest lu_factor: the matrix in registers, the pivot row found with `tl.max(..., return_indices=True)` on the
masked column, rows exchanged with tl.where, the multipliers guarded by a scalar test `(r > j) & (piv != 0.0)`,
the trailing block updated as a masked rank-1 update; returns (LU, pivots) with 1-based int32 pivots.

Regression (2026-11-28): the CPU interpreter typed the scalar comparison `piv != 0.0` as fp32, so its broadcast
against the block made floats of its booleans and `&` raised (RUNTIME_ERROR); a GPU compiles it, and the
interpreter now types comparisons int1 (`kbx.evaluation.candidate.interpreter`).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _lu(a_ptr, lu_ptr, piv_ptr, m, n, k, sab, sam, san, slb, slm, sln, BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, BM)
    c = tl.arange(0, BN)
    ok = (r[:, None] < m) & (c[None, :] < n)
    T = tl.load(a_ptr + b * sab + r[:, None] * sam + c[None, :] * san, mask=ok, other=0.0).to(tl.float32)
    for j in range(0, k):
        col = tl.sum(tl.where(c[None, :] == j, T, 0.0), axis=1)
        _, p = tl.max(tl.where((r >= j) & (r < m), tl.abs(col), -1.0), axis=0, return_indices=True)
        tl.store(piv_ptr + b * k + j, (p + 1).to(tl.int32))
        row_j = tl.sum(tl.where(r[:, None] == j, T, 0.0), axis=0)
        row_p = tl.sum(tl.where(r[:, None] == p, T, 0.0), axis=0)
        T = tl.where(r[:, None] == j, row_p[None, :], tl.where(r[:, None] == p, row_j[None, :], T))
        piv = tl.sum(tl.where(c == j, row_p, 0.0), axis=0)
        col = tl.sum(tl.where(c[None, :] == j, T, 0.0), axis=1)
        l = tl.where((r > j) & (piv != 0.0), col / tl.where(piv != 0.0, piv, 1.0), 0.0)
        T = T - l[:, None] * tl.where(c > j, row_p, 0.0)[None, :]
        T = tl.where((c[None, :] == j) & (r[:, None] > j), l[:, None], T)
    tl.store(lu_ptr + b * slb + r[:, None] * slm + c[None, :] * sln, T, mask=ok)


def lu_factor(A, pivot=True):
    m, n = A.shape[-2:]
    k = min(m, n)
    LU = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    piv = torch.empty((*A.shape[:-2], k), dtype=torch.int32, device=A.device)
    a = A.reshape(-1, m, n)
    lu = LU.view(-1, m, n)
    if a.shape[0] and k:
        _lu[(a.shape[0],)](a, lu, piv, m, n, k, *a.stride(), *lu.stride(),
                           BM=max(16, triton.next_power_of_2(m)), BN=max(16, triton.next_power_of_2(n)))
    return LU, piv
