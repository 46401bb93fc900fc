"""An honest matrix_power as a third party writes it: left-to-right binary powering, fp32 throughout.

One program per matrix loads it once, converts it to fp32 and keeps it and the running result R in registers.
The exponent's bits are walked from the highest one down (left-to-right binary exponentiation): R starts as A,
and for each lower bit R is squared and, where the bit is set, multiplied by A once more; n = 0 gives the
identity. Every product is a `tl.dot` of fp32 tiles with `input_precision="ieee"` (no TF32), and R is rounded to
the input dtype only once, at the end. It differs from the suite's solution, which walks the bits from the lowest
one up (squaring A, multiplying into R) and, for fp16/bf16, rounds every intermediate power to the dtype.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _power_msb(a_ptr, o_ptr, N, n_exp, n_bits, sab, sar, sac, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    r_ = tl.arange(0, BLOCK)
    c_ = tl.arange(0, BLOCK)
    inside = (r_[:, None] < N) & (c_[None, :] < N)
    a = tl.load(a_ptr + b * sab + r_[:, None] * sar + c_[None, :] * sac, mask=inside, other=0.0).to(tl.float32)
    res = a
    for i in range(0, n_bits - 1):
        bit = n_bits - 2 - i
        res = tl.dot(res, res, input_precision="ieee")
        if (n_exp >> bit) & 1:
            res = tl.dot(res, a, input_precision="ieee")
    if n_exp == 0:
        res = tl.where(r_[:, None] == c_[None, :], 1.0, 0.0)
    tl.store(o_ptr + b * N * N + r_[:, None] * N + c_[None, :], res.to(o_ptr.dtype.element_ty), mask=inside)


def matrix_power(A, n):
    N = A.shape[-1]
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.reshape(-1, N, N)
    BLOCK = max(16, triton.next_power_of_2(N))
    _power_msb[(a.shape[0],)](a, out, N, int(n), int(n).bit_length(), *a.stride(), BLOCK=BLOCK,
                              num_warps=8 if BLOCK == 64 else 4)
    return out
