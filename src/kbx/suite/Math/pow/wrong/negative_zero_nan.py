"""Wrong: the suite's pow solution before 2026-11-28. For a negative half-integer exponent it forms (1 / x)^n *
sqrt(1 / x), so a base of -0 gives sqrt(-inf) = NaN where IEEE pow (and PyTorch) give +inf. Found on an H200, where
an fp16 bench base below 3e-8 in magnitude rounded to -0; `check_neg_three_halves` now holds zeros of both signs.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

BLOCK_BYTES = 8192  # bytes of input per program: 2048 fp32 or 4096 fp16 elements
NUM_WARPS = 8
MAX_SPECIAL = 16  # largest |e| computed by multiplication; beyond it the error would grow with the multiplies

INTEGER: tl.constexpr = tl.constexpr(0)
HALF_INTEGER: tl.constexpr = tl.constexpr(1)
GENERAL: tl.constexpr = tl.constexpr(2)


@triton.jit
def _int_power(b, N: tl.constexpr):
    # b^N for a compile-time N in [0, 31] by binary exponentiation; the ifs are resolved at compile time.
    result = tl.full(b.shape, 1.0, tl.float32)
    square = b
    for bit in tl.static_range(5):
        if (N >> bit) & 1:
            result = result * square
        if (N >> (bit + 1)) > 0:
            square = square * square
    return result


@triton.jit
def _pow_kernel(x_ptr, y_ptr, n, e, MODE: tl.constexpr, N: tl.constexpr, NEGATIVE: tl.constexpr,
                BLOCK: tl.constexpr):
    # Each program owns BLOCK consecutive elements; int64 offsets so pid * BLOCK never overflows.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    if MODE == GENERAL:
        # 2^(e log2|x|); a finite negative base has no real power for a non-integer e. (-inf)^e follows IEEE pow.
        y = tl.exp2(e * tl.log2(tl.abs(x)))
        y = tl.where((x < 0) & (x > float("-inf")), float("nan"), y)
    else:
        # x^e = (1/x)^|e| for e < 0; the reciprocal is IEEE-rounded so 1/0 = inf and 1/inf = 0 exactly.
        b = tl.div_rn(1.0, x) if NEGATIVE else x
        y = _int_power(b, N)
        if MODE == HALF_INTEGER:
            y = y * tl.sqrt_rn(b)
    # Round once, to the output's dtype.
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def _is_dense(x):
    """Whether x's elements fill exactly numel consecutive memory slots, its dims taken in some order."""
    expected = 1
    for size, stride in sorted(zip(x.shape, x.stride()), key=lambda dim: dim[1]):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _variant(exponent):
    """(MODE, N, NEGATIVE) for the kernel: integer and half-integer exponents up to MAX_SPECIAL are specialised."""
    e = float(exponent)
    if e.is_integer() and abs(e) <= MAX_SPECIAL:
        return INTEGER, int(abs(e)), e < 0
    if (2 * e).is_integer() and abs(e) <= MAX_SPECIAL:
        return HALF_INTEGER, int(abs(e) - 0.5), e < 0
    return GENERAL, 0, False


def pow(input, exponent):
    # Dense layouts are walked in memory order with an output of the same strides; gappy views are copied.
    x = input if _is_dense(input) else input.contiguous()
    out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    mode, power, negative = _variant(exponent)
    # PyTorch first rounds the scalar exponent to the tensor's dtype (1.3 becomes 1.2998 in fp16); so do we.
    e = torch.tensor(float(exponent), dtype=x.dtype).item()
    BLOCK = BLOCK_BYTES // x.element_size()
    _pow_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, e, MODE=mode, N=power, NEGATIVE=negative,
                                          BLOCK=BLOCK, num_warps=NUM_WARPS)
    return out
