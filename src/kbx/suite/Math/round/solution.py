"""round in Triton: one streaming pass, round-half-to-even from floor, exact.

round is elementwise, so the kernel is bound by memory traffic: each element is read once and written once (8 bytes
per element in fp32). The arithmetic is a handful of exact fp32 operations.

Rounding to an integer with ties to even, without a library call: r = floor(t) and d = t - r (exact, since both are
within a factor of two of each other or d = 0); the result is r + 1 if d > 0.5, or if d == 0.5 and r is odd, else r.
For |t| >= 2^23 every float is already an integer, floor(t) = t and d = 0; +-inf gives d = NaN and NaN stays NaN,
so both fall through to r unchanged. Round-half-away-from-zero (C's round, floor(t + 0.5)) would differ on every
tie.

Decimals: PyTorch defines round(x, d) by fp32 operations, rint(x * 10^d) / 10^d for d > 0 and rint(x / 10^-d) *
10^-d for d < 0. The kernel performs exactly those operations, with `tl.div_rn` for the division (the `/` operator
may compile to an approximate divide), so the result is bit-identical. 10^|d| is exact in fp32 for |d| <= 10.

Layout: a dense tensor in any order (contiguous, or a permutation of it such as a transpose) is processed in memory
order, and the output is allocated with the same strides, so no copy is made; only views with gaps (a strided slice)
are made contiguous first, which costs one extra read and write.

Tiling: each program handles 8 KB of input with 8 warps: BLOCK = 2048 fp32 elements, two 128-bit loads per thread.
A mask covers the tail; offsets are int64 so tensors above 2^31 elements index correctly.

On an H100 (~3 TB/s) the 16384x32768 fp32 bench moves 4.3 GB (about 1.4 ms), the same as eager PyTorch, which is
also at the memory roofline for this op.
"""

import torch
import triton
import triton.language as tl

BLOCK_BYTES = 8192  # bytes of input per program: 2048 fp32 elements
NUM_WARPS = 8


@triton.jit
def _round_half_even(t):
    # Nearest integer, ties to even. t - floor(t) is exact; NaN and +-inf fail every test and come back as floor(t).
    r = tl.floor(t)
    d = t - r
    r_is_odd = (r - 2.0 * tl.floor(r * 0.5)) == 1.0
    return tl.where((d > 0.5) | ((d == 0.5) & r_is_odd), r + 1.0, r)


@triton.jit
def _round_kernel(x_ptr, y_ptr, n, scale, DECIMALS_SIGN: tl.constexpr, BLOCK: tl.constexpr):
    # Each program owns BLOCK consecutive elements; int64 offsets so pid * BLOCK never overflows.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    # scale = 10^|decimals|; the same fp32 operations, in the same order, as PyTorch.
    if DECIMALS_SIGN > 0:
        y = tl.div_rn(_round_half_even(x * scale), scale)
    elif DECIMALS_SIGN < 0:
        y = _round_half_even(tl.div_rn(x, scale)) * scale
    else:
        y = _round_half_even(x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def _is_dense(x):
    """Whether x's elements fill exactly numel consecutive memory slots, its dims taken in some order."""
    expected = 1
    for size, stride in sorted(zip(x.shape, x.stride()), key=lambda dim: dim[1]):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def round(input, decimals=0):
    # Dense layouts are walked in memory order with an output of the same strides; gappy views are copied.
    x = input if _is_dense(input) else input.contiguous()
    out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    sign = (decimals > 0) - (decimals < 0)
    BLOCK = BLOCK_BYTES // x.element_size()
    _round_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, float(10 ** abs(decimals)), DECIMALS_SIGN=sign, BLOCK=BLOCK,
                                            num_warps=NUM_WARPS)
    return out
