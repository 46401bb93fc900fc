"""An honest cholesky as a third party writes it: left-looking (Crout) columns, only A's lower triangle read.

One program per matrix holds the factor L in registers, initially zero. Step j loads column j of A on and below
the diagonal straight from memory, subtracts the contributions of the columns already computed,
v = A[j:, j] - L[j:, :j] L[j, :j]ᵀ (one fp32 dot product per row), and sets L[j, j] = sqrt(v_j) and
L[i, j] = v_i / L[j, j] below it. It differs from the suite's solution, which loads the whole matrix and applies
rank-1 updates to the trailing block (right-looking). upper=True writes Lᵀ through swapped output strides.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _crout(a_ptr, l_ptr, n, sab, sar, sac, slb, slr, slc, BN: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, BN)
    c = tl.arange(0, BN)
    L = tl.zeros((BN, BN), dtype=tl.float32)
    for j in range(0, n):
        below = (r >= j) & (r < n)
        a_col = tl.load(a_ptr + b * sab + r * sar + j * sac, mask=below, other=0.0).to(tl.float32)
        l_row = tl.sum(tl.where(r[:, None] == j, L, 0.0), axis=0)       # L[j, :], zero from column j on
        v = a_col - tl.sum(L * l_row[None, :], axis=1)
        d = tl.sqrt(tl.sum(tl.where(r == j, v, 0.0), axis=0))
        col = tl.where(r == j, d, tl.where(below, v / d, 0.0))
        L = tl.where(c[None, :] == j, col[:, None], L)
    tl.store(l_ptr + b * slb + r[:, None] * slr + c[None, :] * slc, L.to(l_ptr.dtype.element_ty),
             mask=(r[:, None] < n) & (c[None, :] < n))


def cholesky(A, upper=False):
    n = A.shape[-1]
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.reshape(-1, n, n)
    l = out.view(-1, n, n)
    if upper:
        l = l.transpose(1, 2)
    _crout[(a.shape[0],)](a, l, n, *a.stride(), *l.stride(), BN=max(16, triton.next_power_of_2(n)))
    return out
