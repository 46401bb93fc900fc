"""Cholesky with a pivot floor: a pivot W[j, j] below 1e-2 A[j, j] is raised to that floor before its square root,
a guard meant to keep rounding from producing a zero or negative pivot (as modified-Cholesky codes do on purpose).
A positive definite matrix whose eigenvalues spread over more than about two decades has legitimate pivots below
the floor, and the factor of the raised pivots is another matrix's.

On the other workloads every pivot exceeds 0.1 A[j, j], the floor never acts and the output is the solution's.
Measured (scripts/verify_tasks.py, CPU interpreter): PASSED before check_cond_1e5 was added; MISMATCH after, 389
of its 4,356 elements out, the worst at 236x its bound (460-560x at seeds 0 and 1)."""


import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"
TOL = tl.constexpr(1e-2)


@triton.jit
def _cholesky_kernel(a_ptr, l_ptr, n, sab, sar, sac, slb, slr, slc, BLOCK_N: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BLOCK_N)
    cols = tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < n) & (cols[None, :] < n)
    w = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=inside, other=0.0)
    w = w.to(tl.float32)
    a_diag = tl.sum(tl.where(rows[:, None] == cols[None, :], w, 0.0), axis=1)  # A's own diagonal
    L = tl.zeros((BLOCK_N, BLOCK_N), dtype=tl.float32)
    for j in range(0, n):
        w_col = tl.sum(tl.where(cols[None, :] == j, w, 0.0), axis=1)     # current column j
        # The guard: a pivot below TOL * A[j, j] is taken as rounding noise and raised to that floor.
        floor = TOL * tl.sum(tl.where(rows == j, a_diag, 0.0), axis=0)
        d = tl.sqrt(tl.maximum(tl.sum(tl.where(rows == j, w_col, 0.0), axis=0), floor))
        c = tl.where(rows > j, w_col / d, 0.0)                           # the column of L below the pivot
        L = tl.where(cols[None, :] == j, (c + tl.where(rows == j, d, 0.0))[:, None], L)
        w = w - c[:, None] * c[None, :]                                  # rank-1 update of the trailing block
    tl.store(l_ptr + b * slb + rows[:, None] * slr + cols[None, :] * slc, L.to(l_ptr.dtype.element_ty), mask=inside)


def cholesky(A, upper=False):
    n = A.shape[-1]
    assert A.shape[-2] == n and n <= 64, "square A with n <= 64 (batched small matrices)"
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    a = A.reshape(-1, n, n)  # a view whenever the batch dims merge; a copy otherwise
    l = out.view(-1, n, n)
    if upper:  # U = Lᵀ: write L through transposed strides
        l = l.transpose(1, 2)
    if out.numel() == 0:
        return out
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    _cholesky_kernel[(a.shape[0],)](a, l, n, *a.stride(), *l.stride(), BLOCK_N=BLOCK_N, num_warps=4)
    return out
