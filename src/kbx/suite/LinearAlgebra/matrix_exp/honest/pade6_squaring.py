"""An honest matrix_exp as a third party writes it: scaling and squaring around the diagonal [6/6] Padé approximant.

One program per matrix, in registers. It scales A by 2^-s so that ‖A / 2^s‖₁ <= 1/2 (Moler and Van Loan's choice
for a [6/6] approximant: its truncation error there is about 3e-16), forms B², B⁴ and B⁶ with `tl.dot`
(`input_precision="ieee"`, no TF32), splits the approximant into its odd part U = B (c1 I + c3 B² + c5 B⁴) and even
part V = c0 I + c2 B² + c4 B⁴ + c6 B⁶, solves (V - U) X = V + U by Gauss-Jordan elimination with partial pivoting
(V - U ≈ exp(-B/2) is well conditioned) and squares X s times. It differs from the suite's solution, which
evaluates a degree-12 Taylor polynomial (no linear solve) on A scaled to ‖A‖₁ <= 1.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _pade_expm(a_ptr, o_ptr, N, sab, sar, sac, c0, c1, c2, c3, c4, c5, c6, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, BLOCK)
    c = tl.arange(0, BLOCK)
    inside = (r[:, None] < N) & (c[None, :] < N)
    a = tl.load(a_ptr + b * sab + r[:, None] * sar + c[None, :] * sac, mask=inside, other=0.0).to(tl.float32)
    eye = tl.where((r[:, None] == c[None, :]) & inside, 1.0, 0.0)
    norm1 = tl.max(tl.sum(tl.abs(a), axis=0), axis=0)
    s = tl.maximum(tl.ceil(tl.log2(norm1)) + 1.0, 0.0)
    x = a * tl.exp2(-s)
    x2 = tl.dot(x, x, input_precision="ieee")
    x4 = tl.dot(x2, x2, input_precision="ieee")
    x6 = tl.dot(x4, x2, input_precision="ieee")
    u = tl.dot(x, c1 * eye + c3 * x2 + c5 * x4, input_precision="ieee")
    v = c0 * eye + c2 * x2 + c4 * x4 + c6 * x6
    d = v - u
    rhs = v + u
    # Gauss-Jordan with partial pivoting: d becomes the identity, rhs becomes d⁻¹ (v + u).
    for j in range(0, N):
        col = tl.sum(tl.where(c[None, :] == j, d, 0.0), axis=1)
        p = tl.argmax(tl.where((r >= j) & (r < N), tl.abs(col), -1.0), axis=0)
        dj = tl.sum(tl.where(r[:, None] == j, d, 0.0), axis=0)
        dp = tl.sum(tl.where(r[:, None] == p, d, 0.0), axis=0)
        bj = tl.sum(tl.where(r[:, None] == j, rhs, 0.0), axis=0)
        bp = tl.sum(tl.where(r[:, None] == p, rhs, 0.0), axis=0)
        d = tl.where(r[:, None] == p, dj[None, :], d)
        rhs = tl.where(r[:, None] == p, bj[None, :], rhs)
        col = tl.where(r == p, tl.sum(tl.where(r == j, col, 0.0), axis=0), col)
        piv = tl.sum(tl.where(c == j, dp, 0.0), axis=0)
        dp = dp / piv
        bp = bp / piv
        f = tl.where(r == j, 0.0, col)
        d = tl.where(r[:, None] == j, dp[None, :], d - f[:, None] * dp[None, :])
        rhs = tl.where(r[:, None] == j, bp[None, :], rhs - f[:, None] * bp[None, :])
    for _ in range(0, s.to(tl.int32)):
        rhs = tl.dot(rhs, rhs, input_precision="ieee")
    tl.store(o_ptr + b * N * N + r[:, None] * N + c[None, :], rhs.to(o_ptr.dtype.element_ty), mask=inside)


def _pade_coefficients(q):
    return [math.factorial(2 * q - k) * math.factorial(q) / (math.factorial(2 * q) * math.factorial(k)
                                                                * math.factorial(q - k)) for k in range(q + 1)]


def matrix_exp(A):
    N = A.shape[-1]
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.reshape(-1, N, N)
    BLOCK = max(16, triton.next_power_of_2(N))
    _pade_expm[(a.shape[0],)](a, out, N, *a.stride(), *_pade_coefficients(6), BLOCK=BLOCK,
                              num_warps=8 if BLOCK == 64 else 4)
    return out
