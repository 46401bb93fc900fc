"""Binary exponentiation that starts from R = A and never special-cases n = 0: with no bits set it returns A
itself instead of the identity (torch.linalg.matrix_power(A, 0) is I for every A)."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _mm(x, y, LOW_PRECISION: tl.constexpr, dtype: tl.constexpr):
    # One product of two register tiles, fp32 accumulation either way.
    if LOW_PRECISION:
        return tl.dot(x.to(dtype), y.to(dtype), out_dtype=tl.float32)
    else:
        return tl.dot(x, y, input_precision="ieee", out_dtype=tl.float32)


@triton.jit
def _matrix_power_kernel(a_ptr, out_ptr, N, n_exp, low_bit, n_bits,
                         sab, sar, sac, sob, sor, soc,
                         BLOCK: tl.constexpr, LOW_PRECISION: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)  # int64: batch * stride exceeds 2^31 at bench sizes
    rows = tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    inside = (rows[:, None] < N) & (cols[None, :] < N)
    dtype = a_ptr.dtype.element_ty
    z = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=inside, other=0.0)
    z = z.to(tl.float32)
    # Squarings up to the lowest set bit of n: R starts as A^(2^low_bit), no multiplication by I.
    for _ in range(0, low_bit):
        z = _mm(z, z, LOW_PRECISION, dtype)
    r = z
    # Every higher bit: one more squaring, and one product where the bit is set.
    for bit in range(low_bit + 1, n_bits):
        z = _mm(z, z, LOW_PRECISION, dtype)
        if (n_exp >> bit) & 1:
            r = _mm(r, z, LOW_PRECISION, dtype)
    tl.store(out_ptr + b * sob + rows[:, None] * sor + cols[None, :] * soc, r.to(dtype), mask=inside)


def matrix_power(A, n):
    """A^n for a batch of square matrices A (..., N, N), N <= 64, n >= 0 (negative n is not supported)."""
    N = A.shape[-1]
    assert A.shape[-2] == N and N <= 64, "square A with N <= 64 (batched small matrices)"
    assert n >= 0, "negative exponents (powers of the inverse) are not supported"
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.reshape(-1, N, N)  # a view whenever the batch dims merge; strides are passed through
    o = out.view(-1, N, N)
    low_bit = (n & -n).bit_length() - 1 if n > 0 else 0
    BLOCK = max(triton.next_power_of_2(N), 16)
    _matrix_power_kernel[(a.shape[0],)](
        a, o, N, n, low_bit, n.bit_length(), *a.stride(), *o.stride(),
        BLOCK=BLOCK, LOW_PRECISION=A.dtype != torch.float32, num_warps=8 if BLOCK == 64 else 4)
    return out
