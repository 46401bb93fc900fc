"""clamp with scalar bounds in Triton: one streaming pass, two selects per element.

clamp is elementwise, so the kernel is bound by memory traffic: each element is read once and written once (8 bytes
per element in fp32, 4 in fp16/bf16). Which bounds exist is known on the host, so HAS_MIN and HAS_MAX are
compile-time flags and a missing bound costs nothing (and is never confused with a bound of 0.0).

Semantics: the lower bound is applied first and the upper bound last, as in PyTorch, so min > max yields max
everywhere. The bounds are applied with selects on explicit comparisons, not with max/min instructions: x < lo and x
> hi are both false for NaN, so NaN passes through as PyTorch requires, whereas the hardware fmax/fmin return the
non-NaN operand. Comparisons are done in fp32 (exact for fp16/bf16 inputs) and the chosen value is stored in the
input dtype, so the result is exactly the input element or the bound rounded to the dtype.

Layout: a dense tensor in any order (contiguous, or a permutation of it such as a transpose) is processed in memory
order, and the output is allocated with the same strides, so no copy is made; only views with gaps (a strided slice)
are made contiguous first, which costs one extra read and write.

Tiling: each program handles 8 KB of input with 8 warps: BLOCK = 2048 fp32 or 4096 bf16/fp16 elements, two 128-bit
loads per thread. A mask covers the tail; offsets are int64 so tensors above 2^31 elements index correctly.

On an H100 (~3 TB/s) the 24576x32768 bench moves 6.4 GB in fp32 (about 2.1 ms) and 3.2 GB in fp16 or bf16 (about 1.1
ms), the same as eager PyTorch, which is also at the memory roofline for this op.
"""

import torch
import triton
import triton.language as tl

BLOCK_BYTES = 8192  # bytes of input per program: 2048 fp32 or 4096 bf16/fp16 elements
NUM_WARPS = 8


@triton.jit
def _clamp_kernel(x_ptr, y_ptr, n, lo, hi, HAS_MIN: tl.constexpr, HAS_MAX: tl.constexpr, BLOCK: tl.constexpr):
    # Each program owns BLOCK consecutive elements; int64 offsets so pid * BLOCK never overflows.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = x
    # Lower bound first, upper bound last (so min > max gives max); NaN fails both tests and is kept.
    if HAS_MIN:
        y = tl.where(y < lo, lo, y)
    if HAS_MAX:
        y = tl.where(y > hi, hi, y)
    # The result is x or a bound; storing rounds a bound to the output dtype, as PyTorch does.
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def _is_dense(x):
    """Whether x's elements fill exactly numel consecutive memory slots, its dims taken in some order."""
    expected = 1
    for size, stride in sorted(zip(x.shape, x.stride()), key=lambda dim: dim[1]):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def clamp(input, min=None, max=None):
    # Dense layouts are walked in memory order with an output of the same strides; gappy views are copied.
    x = input if _is_dense(input) else input.contiguous()
    out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    # `is None`, never truthiness: a bound of 0.0 is a real bound.
    has_min, has_max = min is not None, max is not None
    BLOCK = BLOCK_BYTES // x.element_size()
    _clamp_kernel[(triton.cdiv(n, BLOCK),)](
        x, out, n, float(min) if has_min else 0.0, float(max) if has_max else 0.0,
        HAS_MIN=has_min, HAS_MAX=has_max, BLOCK=BLOCK, num_warps=NUM_WARPS,
    )
    return out
