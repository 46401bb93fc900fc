"""log1p in Triton: one streaming pass, accurate near 0 without relying on the hardware log.

log1p is elementwise, so the kernel is bound by memory traffic: each element is read once and written once (8 bytes
per element in fp32, 4 in bf16).

Accuracy: log(1 + x) is useless for small x (1 + x rounds away the low digits of x), and the trick of rescaling
log(1 + x) by x / ((1 + x) - 1) relies on the hardware log being accurate in relative terms near 1, which a fast GPU
log is not (its error there is about 1e-7 absolute). So for |x| < 0.3 the kernel uses the series

    log1p(x) = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ... + s^11/11),   s = x / (2 + x),  |s| < 0.18,

whose truncation error is below 1e-9 relative and whose only roundings are in s and a short Horner chain (a few ulp
in all). For |x| >= 0.3 the result is at least 0.26 in magnitude and log(1 + x) is accurate to a few ulp; it also
gives the special values: log1p(-1) = -inf, NaN below -1, +inf at +inf.

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


@triton.jit
def _log1p_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # Each program owns BLOCK consecutive elements; int64 offsets so pid * BLOCK never overflows.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    # Small |x|: 2 atanh(s) with s = x / (2 + x), a series in s^2 that converges fast for |s| < 0.18.
    s = x / (2.0 + x)
    s2 = s * s
    series = 1.0 / 3.0 + s2 * (1.0 / 5.0 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0 + s2 * (1.0 / 11.0))))
    small = 2.0 * s + (2.0 * s) * (s2 * series)
    # Larger |x| (and -1, +inf, NaN, x < -1): 1 + x loses nothing that matters there.
    y = tl.where(tl.abs(x) < 0.3, small, tl.log(1.0 + x))
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


def log1p(input):
    # Dense layouts are walked in memory order with an output of the same strides; gappy views are copied.
    x = input if _is_dense(input) else input.contiguous()
    out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = BLOCK_BYTES // x.element_size()
    _log1p_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
    return out
