"""tanh in Triton: one streaming pass over memory, math in fp32, overflow-free and accurate near 0.

For |x| >= 0.25, tanh(|x|) = (1 - t) / (1 + t) with t = exp(-2|x|) in (0, 0.61]: t never overflows (large |x|
gives t = 0 and exactly 1), and 1 - t loses no more than a couple of ulps. Below 0.25, 1 - t cancels, so the
kernel uses the odd Taylor series x * (1 - x^2/3 + 2x^4/15 - ...) to x^11, whose truncation error there is
below 1e-9 relative. The sign is restored at the end (tanh is odd).

tanh is elementwise, so the kernel is bound by memory traffic: each element is read once and written once
(8 bytes per element in fp32, 4 in bf16); the exp, the division and the short polynomial are far below the
H100's arithmetic throughput.

Layout: a tensor whose elements fill one dense block of memory (contiguous, but also transposed or otherwise
permuted) is processed in its own memory order, and `empty_like` gives the output the same strides, so element
i of the input's memory maps to element i of the output's with no copy. Only a tensor with gaps (a strided
slice) is first made contiguous, which costs one extra read and write.

Tiling: each program handles BLOCK = 4096 consecutive elements with 8 warps (16 per thread, issued as 128-bit
vector accesses); a mask covers the tail. Offsets are int64 so tensors past 2^31 elements index correctly.

On an H100 (~3 TB/s) the 24576 x 32768 fp32 bench (6.4 GB of traffic) should take about 2.1 ms, bf16 about
1.1 ms.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    a = tl.abs(x)
    # Large |x|: exp of a non-positive argument, so no overflow; t underflows to 0 and the result is exactly 1.
    t = tl.exp(-2.0 * a)
    big = (1.0 - t) / (1.0 + t)
    # Small |x|: Taylor series of tanh(a) / a in a^2 (Horner form), exact to fp32 rounding for a < 0.25.
    a2 = a * a
    p = -1382.0 / 155925.0
    p = p * a2 + 62.0 / 2835.0
    p = p * a2 - 17.0 / 315.0
    p = p * a2 + 2.0 / 15.0
    p = p * a2 - 1.0 / 3.0
    small = a + a * (a2 * p)
    y = tl.where(a < 0.25, small, big)
    y = tl.where(x < 0, -y, y)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def _fills_dense_block(x):
    """True when x's elements occupy one gap-free block of memory in some order (contiguous, transposed, ...)."""
    expected = 1
    for stride, size in sorted((s, n) for s, n in zip(x.stride(), x.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def tanh(input):
    x = input if _fills_dense_block(input) else input.contiguous()
    out = torch.empty_like(x)  # same strides as x when x is dense, so both are walked in one memory order
    n = x.numel()
    if n == 0:
        return out
    BLOCK = 4096
    _tanh_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=8)
    return out
