"""Hard tanh in Triton: one streaming pass over memory, two compares and selects per element, no rounding.

Clamping only selects between x and a bound, so the result is exact: x is widened to fp32 (lossless), compared
with the fp32 bounds, and `where(x < lo, lo, where(x > hi, hi, x))` keeps x itself, including -0.0, everywhere
in between; the one cast back to the input dtype rounds nothing but the bounds themselves. The kernel is bound
purely by memory traffic: each element is read once and written once (8 bytes per element in fp32, 4 in fp16).

Layout: a tensor whose elements fill one dense block of memory (contiguous, but also transposed or otherwise
permuted) is processed in its own memory order, and `empty_like` gives the output the same strides, so element
i of the input's memory maps to element i of the output's with no copy. Only a tensor with gaps (a strided
slice) is first made contiguous, which costs one extra read and write.

Tiling: each program handles BLOCK = 4096 consecutive elements with 8 warps (16 per thread, issued as 128-bit
vector accesses); a mask covers the tail. Offsets are int64 so tensors past 2^31 elements index correctly.

On an H100 (~3 TB/s) the 24576 x 32768 fp32 bench (6.4 GB of traffic) should take about 2.1 ms, fp16 about
1.1 ms.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _hardtanh_kernel(x_ptr, y_ptr, n, min_val, max_val, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    # Widening fp16 to fp32 and back is lossless, so comparing in fp32 keeps the result exact.
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.where(x < min_val, min_val, tl.where(x > max_val, max_val, x))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def _fills_dense_block(x):
    """True when x's elements occupy one gap-free block of memory in some order (contiguous, transposed, ...)."""
    expected = 1
    for stride, size in sorted((s, n) for s, n in zip(x.stride(), x.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def hardtanh(input, min_val=-1.0, max_val=1.0):
    x = input if _fills_dense_block(input) else input.contiguous()
    out = torch.empty_like(x)  # same strides as x when x is dense, so both are walked in one memory order
    n = x.numel()
    if n == 0:
        return out
    BLOCK = 4096
    _hardtanh_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, float(min_val), float(max_val), BLOCK=BLOCK,
                                               num_warps=8)
    return out
