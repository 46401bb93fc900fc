"""log in Triton: one streaming pass, evaluated in fp32.

log is elementwise, so the kernel is bound by memory traffic: each element is read once and written once (8 bytes
per element in fp32, 4 in fp16). `tl.log` on fp32 is a short hardware sequence (a base-2 logarithm scaled by ln 2):
a few ulp relative error away from x = 1 and an absolute error around 1e-7 near 1, where the result is small; both
are far inside the fp32 tolerance (atol 1e-5 covers the region near 1). The IEEE special cases come out of the
instruction directly: log(+-0) = -inf, log(+inf) = +inf, log(x < 0) = NaN.

Layout: a dense tensor in any order (contiguous, or a permutation of it such as a transpose) is processed in memory
order, and the output is allocated with the same strides, so no copy is made; only views with gaps (a strided slice)
are made contiguous first, which costs one extra read and write.

Tiling: each program handles 8 KB of input with 8 warps: BLOCK = 2048 fp32 or 4096 bf16/fp16 elements, two 128-bit
loads per thread. A mask covers the tail; offsets are int64 so tensors above 2^31 elements index correctly.
Half-precision inputs are upcast to fp32 and the result rounded once to the input dtype.

On an H100 (~3 TB/s) the 24576x32768 bench moves 6.4 GB in fp32 (about 2.1 ms) and 3.2 GB in fp16 (about 1.1 ms),
the same as eager PyTorch, which is also at the memory roofline for this op.
"""

import torch
import triton
import triton.language as tl

BLOCK_BYTES = 8192  # bytes of input per program: 2048 fp32 or 4096 bf16/fp16 elements
NUM_WARPS = 8


@triton.jit
def _log_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # Each program owns BLOCK consecutive elements; int64 offsets so pid * BLOCK never overflows.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.log(x)
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


def log(input):
    # Dense layouts are walked in memory order with an output of the same strides; gappy views are copied.
    x = input if _is_dense(input) else input.contiguous()
    out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = BLOCK_BYTES // x.element_size()
    _log_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
    return out
