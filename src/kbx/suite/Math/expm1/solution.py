"""expm1 in Triton: one streaming pass, accurate near 0 and near overflow.

expm1 is elementwise, so the kernel is bound by memory traffic: each element is read once and written once (8 bytes
per element in fp32, 4 in bf16).

Accuracy near 0: exp(x) - 1 cancels catastrophically for small x, so for |x| < 0.5 the kernel evaluates the Taylor
polynomial x (1 + x/2 + x^2/6 + ... + x^8/9!) in Horner form (truncation below 1e-9 relative, a couple of ulp of
rounding). For |x| >= 0.5, e^x - 1 is at least 0.39 in magnitude and the subtraction is harmless.

Accuracy near overflow: a GPU exp computes 2^(x log2 e) and rounding t = x log2 e to fp32 costs up to half an ulp of
128, i.e. ~6e-6 relative error at x ~ 88. The kernel keeps the rounding error of t as well, t_lo = fma(x, LOG2E_HI,
-t) + x LOG2E_LO, and applies it as a factor (1 + t_lo ln 2), which brings the error back to that of the hardware
exp2 (about 2 ulp). For x = +-inf, t_lo is NaN and is dropped; the factor is applied by multiplication so that an
overflowed 2^t stays +inf.

Layout: a dense tensor in any order (contiguous, or a permutation of it such as a transpose) is processed in memory
order, and the output is allocated with the same strides, so no copy is made; only views with gaps (a strided slice)
are made contiguous first, which costs one extra read and write.

Tiling: each program handles 8 KB of input with 8 warps: BLOCK = 2048 fp32 or 4096 bf16/fp16 elements, two 128-bit
loads per thread. A mask covers the tail; offsets are int64 so tensors above 2^31 elements index correctly.
Half-precision inputs are upcast to fp32 and the result rounded once to the input dtype.

On an H100 (~3 TB/s) the 24576x32768 bench moves 6.4 GB in fp32 (about 2.1 ms) and 3.2 GB in bf16 (about 1.1 ms),
the same as eager PyTorch: the extra arithmetic (about 20 FLOPs per element) is hidden behind the memory traffic.
"""

import torch
import triton
import triton.language as tl

BLOCK_BYTES = 8192  # bytes of input per program: 2048 fp32 or 4096 bf16/fp16 elements
NUM_WARPS = 8

LOG2E_HI: tl.constexpr = tl.constexpr(1.4426950216293335)  # log2(e) rounded to fp32
LOG2E_LO: tl.constexpr = tl.constexpr(1.92596298909109e-08)  # log2(e) - LOG2E_HI
LN2: tl.constexpr = tl.constexpr(0.6931471805599453)


@triton.jit
def _expm1_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # Each program owns BLOCK consecutive elements; int64 offsets so pid * BLOCK never overflows.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    # Small |x|: Taylor polynomial, no cancellation.
    q = 1.0 / 40320.0 + x * (1.0 / 362880.0)
    q = 1.0 / 5040.0 + x * q
    q = 1.0 / 720.0 + x * q
    q = 1.0 / 120.0 + x * q
    q = 1.0 / 24.0 + x * q
    q = 1.0 / 6.0 + x * q
    q = 0.5 + x * q
    small = x + x * (x * q)
    # Larger |x|: e^x = 2^t * 2^t_lo with t = fl(x log2 e) and t_lo its rounding error (exact by fma) plus the
    # part of log2 e below fp32; 2^t_lo ~ 1 + t_lo ln 2.
    t = x * LOG2E_HI
    t_lo = tl.fma(x, LOG2E_HI, -t) + x * LOG2E_LO
    t_lo = tl.where(t_lo == t_lo, t_lo, 0.0)  # NaN only for x = +-inf, where it does not matter
    big = tl.exp2(t) * (1.0 + t_lo * LN2) - 1.0
    y = tl.where(tl.abs(x) < 0.5, small, big)
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


def expm1(input):
    # Dense layouts are walked in memory order with an output of the same strides; gappy views are copied.
    x = input if _is_dense(input) else input.contiguous()
    out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = BLOCK_BYTES // x.element_size()
    _expm1_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
    return out
