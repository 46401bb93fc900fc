"""LU with partial pivoting, except for 3 x 3 matrices, which take the closed form (the rule of Sarrus, as some
libraries use for the smallest sizes). The six triple products can each be as large as ‖A‖³ and cancel down to
det(A): the rounding error is about u ‖A‖³ rather than u cond(A) |det(A)|, harmless when the singular values are
within a few times each other and far too large when they spread over decades.

Measured (scripts/verify_tasks.py, CPU interpreter): PASSED every workload before check_cond_3x3 was added
(check_small_t, 3 x 3 with cond <= 4: 0.003 of the bound at seeds 0 and 1); MISMATCH after, 18 of its 64
determinants out, the worst at 260x its bound (140-930x at seeds 0 and 1)."""


import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _det_kernel(a_ptr, out_ptr, n, sab, sar, sac, BLOCK_N: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BLOCK_N)
    cols = tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < n) & (cols[None, :] < n)
    w = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=inside, other=0.0).to(tl.float32)
    det = 1.0
    for j in range(0, n):
        w_col = tl.sum(tl.where(cols[None, :] == j, w, 0.0), axis=1)
        p = tl.argmax(tl.where((rows >= j) & (rows < n), tl.abs(w_col), -1.0), axis=0)
        row_j = tl.sum(tl.where(rows[:, None] == j, w, 0.0), axis=0)
        row_p = tl.sum(tl.where(rows[:, None] == p, w, 0.0), axis=0)
        # Row exchange: row j takes the pivot row; row p takes the old row j (the only row below j that changes).
        w = tl.where(rows[:, None] == p, row_j[None, :], w)
        pivot = tl.sum(tl.where(cols == j, row_p, 0.0), axis=0)
        det = det * tl.where(p != j, -pivot, pivot)
        col_j = tl.where(rows == p, tl.sum(tl.where(rows == j, w_col, 0.0), axis=0), w_col)
        f = tl.where(rows > j, col_j / pivot, 0.0)
        w = w - f[:, None] * row_p[None, :]
    tl.store(out_ptr + b, det.to(out_ptr.dtype.element_ty))


@triton.jit
def _det3_kernel(a_ptr, out_ptr, count, sab, sar, sac, BLOCK: tl.constexpr):
    # The rule of Sarrus, BLOCK matrices per program: six triple products, added and subtracted.
    m = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = m < count
    base = a_ptr + m.to(tl.int64) * sab
    a00 = tl.load(base, mask=live, other=0.0).to(tl.float32)
    a01 = tl.load(base + sac, mask=live, other=0.0).to(tl.float32)
    a02 = tl.load(base + 2 * sac, mask=live, other=0.0).to(tl.float32)
    a10 = tl.load(base + sar, mask=live, other=0.0).to(tl.float32)
    a11 = tl.load(base + sar + sac, mask=live, other=0.0).to(tl.float32)
    a12 = tl.load(base + sar + 2 * sac, mask=live, other=0.0).to(tl.float32)
    a20 = tl.load(base + 2 * sar, mask=live, other=0.0).to(tl.float32)
    a21 = tl.load(base + 2 * sar + sac, mask=live, other=0.0).to(tl.float32)
    a22 = tl.load(base + 2 * sar + 2 * sac, mask=live, other=0.0).to(tl.float32)
    det = (a00 * a11 * a22 + a01 * a12 * a20 + a02 * a10 * a21
           - a02 * a11 * a20 - a00 * a12 * a21 - a01 * a10 * a22)
    tl.store(out_ptr + m, det.to(out_ptr.dtype.element_ty), mask=live)


def det(A):
    n = A.shape[-1]
    assert A.shape[-2] == n and n <= 64, "square A with n <= 64 (batched small matrices)"
    out = torch.empty(A.shape[:-2], dtype=A.dtype, device=A.device)
    a = A.reshape(-1, n, n)  # a view whenever the batch dims merge; a copy otherwise
    if out.numel() == 0:
        return out
    if n == 3:  # the closed form: no elimination loop for the smallest matrices
        _det3_kernel[(triton.cdiv(a.shape[0], 128),)](a, out, a.shape[0], *a.stride(), BLOCK=128)
        return out
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    _det_kernel[(a.shape[0],)](a, out, n, *a.stride(), BLOCK_N=BLOCK_N, num_warps=4)
    return out
