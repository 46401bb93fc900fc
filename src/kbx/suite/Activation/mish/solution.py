"""Mish in Triton: one streaming pass over memory, math in fp32, one exp and one division per element.

tanh(softplus(x)) has a closed form in e = exp(x): with (1 + e)^2 = exp(2 * softplus(x)),

    tanh(softplus(x)) = ((1 + e)^2 - 1) / ((1 + e)^2 + 1) = n / (n + 2),   n = e * (e + 2).

n is computed without subtracting anything, so the far negative tail (n ~ 2e, tanh(softplus(x)) ~ e) keeps full
relative precision, and exp underflowing to 0 gives -0.0 instead of NaN. For x > 20, tanh(softplus(x)) is 1 to
fp32 precision and the result is x; exp is evaluated at min(x, 20) so n never overflows.

Mish is elementwise, so the kernel is bound by memory traffic: each element is read once and written once
(8 bytes per element in fp32, 4 in bf16).

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
def _mish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    e = tl.exp(tl.minimum(x, 20.0))
    num = e * (e + 2.0)
    y = tl.where(x > 20.0, x, x * (num / (num + 2.0)))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def _fills_dense_block(x):
    """True when x's elements occupy one gap-free block of memory in some order (contiguous, transposed, ...)."""
    expected = 1
    for stride, size in sorted((s, n) for s, n in zip(x.stride(), x.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def mish(input):
    x = input if _fills_dense_block(input) else input.contiguous()
    out = torch.empty_like(x)  # same strides as x when x is dense, so both are walked in one memory order
    n = x.numel()
    if n == 0:
        return out
    BLOCK = 4096
    _mish_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=8)
    return out
