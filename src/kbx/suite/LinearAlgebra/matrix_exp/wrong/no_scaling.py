"""Evaluates the degree-12 Taylor polynomial on A itself, without scaling and squaring. That is accurate only
while ‖A‖ is about 1 or less; for larger norms the series is truncated long before its terms shrink
(‖A‖^k / k! peaks near k = ‖A‖) and it cancels catastrophically: skew matrices of norm 50 come out with
entries in the millions instead of an orthogonal matrix."""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _mm(x, y):
    return tl.dot(x, y, input_precision="ieee", out_dtype=tl.float32)


@triton.jit
def _matrix_exp_kernel(a_ptr, out_ptr, N, sab, sar, sac, sob, sor, soc,
                       c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12,
                       BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)  # int64: batch * stride can exceed 2^31
    rows = tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    inside = (rows[:, None] < N) & (cols[None, :] < N)
    a = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=inside, other=0.0)
    a = a.to(tl.float32)
    eye = tl.where((rows[:, None] == cols[None, :]) & inside, 1.0, 0.0)

    x = a
    # Taylor degree 12, Paterson-Stockmeyer with blocks of 4 powers.
    x2 = _mm(x, x)
    x3 = _mm(x2, x)
    x4 = _mm(x2, x2)
    p = c8 * eye + c9 * x + c10 * x2 + c11 * x3 + c12 * x4
    p = c4 * eye + c5 * x + c6 * x2 + c7 * x3 + _mm(x4, p)
    p = c0 * eye + c1 * x + c2 * x2 + c3 * x3 + _mm(x4, p)
    tl.store(out_ptr + b * sob + rows[:, None] * sor + cols[None, :] * soc, p.to(out_ptr.dtype.element_ty),
             mask=inside)


_TAYLOR = [1.0 / math.factorial(k) for k in range(13)]


def matrix_exp(A):
    N = A.shape[-1]
    assert A.shape[-2] == N and N <= 64, "square A with N <= 64 (batched small matrices)"
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.reshape(-1, N, N)  # a view whenever the batch dims merge; strides are passed through
    o = out.view(-1, N, N)
    BLOCK = max(triton.next_power_of_2(N), 16)
    _matrix_exp_kernel[(a.shape[0],)](a, o, N, *a.stride(), *o.stride(), *_TAYLOR,
                                      BLOCK=BLOCK, num_warps=8 if BLOCK == 64 else 4)
    return out
