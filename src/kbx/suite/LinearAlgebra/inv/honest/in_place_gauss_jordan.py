"""An honest inv as a third party writes it: in-place Gauss-Jordan inversion with partial pivoting (no [A | I]).

One program per matrix holds it in registers and inverts it in place, as the textbook routine does: step j
exchanges row j with the row of largest |W[i, j]| (i >= j) and records it, replaces W[j, j] by 1 and divides row j
by the pivot, then for every other row i takes f = W[i, j], sets W[i, j] = 0 and subtracts f times row j. After n
steps W holds (P A)⁻¹, and undoing the exchanges as column swaps in reverse order gives A⁻¹. It differs from the
suite's solution, which eliminates [A | I] below the diagonal (LU) and back-substitutes, using an n x 2n workspace.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gj_inverse(a_ptr, x_ptr, n, sab, sar, sac, BN: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, BN)
    c = tl.arange(0, BN)
    inside = (r[:, None] < n) & (c[None, :] < n)
    w = tl.load(a_ptr + b * sab + r[:, None] * sar + c[None, :] * sac, mask=inside, other=0.0).to(tl.float32)
    perm = tl.zeros((BN,), dtype=tl.int32)
    for j in range(0, n):
        col = tl.sum(tl.where(c[None, :] == j, w, 0.0), axis=1)
        p = tl.argmax(tl.where((r >= j) & (r < n), tl.abs(col), -1.0), axis=0).to(tl.int32)
        perm = tl.where(r == j, p, perm)
        wj = tl.sum(tl.where(r[:, None] == j, w, 0.0), axis=0)
        wp = tl.sum(tl.where(r[:, None] == p, w, 0.0), axis=0)
        w = tl.where(r[:, None] == p, wj[None, :], w)
        col_j = tl.sum(tl.where(r == j, col, 0.0), axis=0)
        col = tl.where(r == p, col_j, col)
        piv = tl.sum(tl.where(c == j, wp, 0.0), axis=0)
        pivot_row = tl.where(c == j, 1.0, wp) / piv
        f = tl.where(r == j, 0.0, col)
        w = tl.where(c[None, :] == j, 0.0, w) - f[:, None] * pivot_row[None, :]
        w = tl.where(r[:, None] == j, pivot_row[None, :], w)
    for t in range(0, n):
        j = n - 1 - t
        p = tl.sum(tl.where(r == j, perm, 0), axis=0)
        cj = tl.sum(tl.where(c[None, :] == j, w, 0.0), axis=1)
        cp = tl.sum(tl.where(c[None, :] == p, w, 0.0), axis=1)
        w = tl.where(c[None, :] == p, cj[:, None], w)
        w = tl.where(c[None, :] == j, cp[:, None], w)
    tl.store(x_ptr + b * n * n + r[:, None] * n + c[None, :], w.to(x_ptr.dtype.element_ty), mask=inside)


def inv(A):
    n = A.shape[-1]
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.reshape(-1, n, n)
    _gj_inverse[(a.shape[0],)](a, out, n, *a.stride(), BN=max(16, triton.next_power_of_2(n)))
    return out
