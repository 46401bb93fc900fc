"""Ignores upper=True and always returns the lower factor L: the transposed result when U = Lᵀ is asked for."""


import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _cholesky_kernel(a_ptr, l_ptr, n, sab, sar, sac, slb, slr, slc, BLOCK_N: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BLOCK_N)
    cols = tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < n) & (cols[None, :] < n)
    w = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=inside, other=0.0)
    w = w.to(tl.float32)
    L = tl.zeros((BLOCK_N, BLOCK_N), dtype=tl.float32)
    for j in range(0, n):
        w_col = tl.sum(tl.where(cols[None, :] == j, w, 0.0), axis=1)     # current column j
        d = tl.sqrt(tl.sum(tl.where(rows == j, w_col, 0.0), axis=0))     # the pivot, sqrt(W[j, j])
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
    if out.numel() == 0:
        return out
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    _cholesky_kernel[(a.shape[0],)](a, l, n, *a.stride(), *l.stride(), BLOCK_N=BLOCK_N, num_warps=4)
    return out
