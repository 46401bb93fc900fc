"""erf in Triton: one streaming pass, evaluated in fp32 with the hardware math library.

erf is elementwise, so the kernel is bound by memory traffic: each element is read once and written once
(8 bytes per element in fp32, 4 in bf16/fp16). The arithmetic, `tl.math.erf` on fp32 (libdevice's erff: a
rational approximation of a few ulp, accurate across the whole range including the saturated tails and the
linear region near 0), costs a few dozen FLOPs per element, far below what the H100 can issue per byte loaded.

Tiling: the input is flattened (made contiguous first if it is not, which costs one extra read and write) and
each program handles 8 KB of input with 8 warps: BLOCK = 2048 fp32 or 4096 bf16/fp16 elements, i.e. two 128-bit
loads per thread (smaller blocks left half precision about 5% short of eager PyTorch). A mask covers the tail.
Offsets are int64 so very large tensors index correctly. Half-precision inputs are upcast to fp32 and the result
rounded once to the input dtype, as PyTorch does.

On an H100 (~3 TB/s) the 16384x32768 bench moves 4.3 GB in fp32 (about 1.4 ms) and 2.1 GB in bf16 or fp16
(about 0.7 ms); measured at a 1.5x larger size, this kernel matched eager PyTorch (~3.0 TB/s) in every dtype.
"""

import torch
import triton
import triton.language as tl

BLOCK_BYTES = 8192  # bytes of input per program: 2048 fp32 or 4096 bf16/fp16 elements
NUM_WARPS = 8


@triton.jit
def _erf_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # Each program owns BLOCK consecutive elements; int64 offsets so pid * BLOCK never overflows.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.math.erf(x)
    # Round once, to the output's dtype (the input's).
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def erf(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = BLOCK_BYTES // x.element_size()
    _erf_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
    return out
