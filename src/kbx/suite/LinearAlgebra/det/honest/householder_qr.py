"""An honest det as a third party writes it: Householder QR in registers, det = (-1)^reflections * prod R[j, j].

One program per matrix holds it in registers and triangularises it with Householder reflections: step j takes
column j from row j down, x, forms v = x - alpha e_j with alpha = -sign(x_j) ||x|| (no cancellation in v_j) and
applies I - 2 v vᵀ / (vᵀ v) to the trailing columns. Each reflection has determinant -1 and leaves alpha on the
diagonal of R, so det(A) is the product of the alphas with one sign flip per reflection. A column that is already
zero from row j down (an exactly singular matrix) gets no reflection and a zero diagonal entry, so det is exactly 0.
It differs from the suite's solution, which eliminates with partial pivoting (LU); QR is backward stable without
any pivoting.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _qr_det(a_ptr, out_ptr, n, sab, sar, sac, BN: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, BN)
    c = tl.arange(0, BN)
    w = tl.load(a_ptr + b * sab + r[:, None] * sar + c[None, :] * sac,
                mask=(r[:, None] < n) & (c[None, :] < n), other=0.0).to(tl.float32)
    det = 1.0
    for j in range(0, n):
        x = tl.sum(tl.where(c[None, :] == j, w, 0.0), axis=1)
        x = tl.where(r >= j, x, 0.0)
        xj = tl.sum(tl.where(r == j, x, 0.0), axis=0)
        norm = tl.sqrt(tl.sum(x * x, axis=0))
        alpha = tl.where(xj >= 0.0, -norm, norm)
        v = tl.where(r == j, xj - alpha, x)
        vtv = tl.sum(v * v, axis=0)
        scale = tl.where(vtv > 0.0, 2.0 / tl.where(vtv > 0.0, vtv, 1.0), 0.0)
        proj = tl.sum(v[:, None] * w, axis=0)                      # vᵀ W, one entry per column
        w = w - (scale * v)[:, None] * proj[None, :]
        det = det * tl.where(norm > 0.0, -alpha, 0.0)             # one reflection: a factor -1
    tl.store(out_ptr + b, det.to(out_ptr.dtype.element_ty))


def det(A):
    n = A.shape[-1]
    out = torch.empty(A.shape[:-2], dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.reshape(-1, n, n)
    _qr_det[(a.shape[0],)](a, out, n, *a.stride(), BN=max(16, triton.next_power_of_2(n)))
    return out
