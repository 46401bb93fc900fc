"""cos in Triton: one streaming pass, fp32 with an accurate argument reduction.

cos is elementwise, so the kernel is bound by memory traffic: each element is read once and written once (8 bytes
per element in fp32, 4 in fp16). The arithmetic is an argument reduction and one `tl.cos`.

Accuracy: `tl.cos` may compile to the hardware's fast cos approximation, whose error (about 5e-7 absolute) is only
promised on [-pi, pi] and grows with |x| outside it. So the kernel reduces the argument itself first: k = round(x /
2 pi), r = x - k * 2 pi with 2 pi split into three fp32 constants (Cody-Waite) and fused multiply-adds, which keeps
r within about one ulp of the exact reduced argument for |x| up to about 2.5e4 (the inputs reach 400). The result is
then good to about 1e-6 absolute on the GPU, a tenth of the fp32 tolerance; on the CPU interpreter it measured about
1e-7 (1% of it). Much larger |x| would need a Payne-Hanek reduction; no workload goes there. The reduction costs
about ten FLOPs per element, free next to the memory traffic.

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

# 2 pi split into three fp32 parts, C1 + C2 + C3 = 2 pi to far below fp32 precision (Cody-Waite). C1 has only 12
# significant bits, so k * C1 is exact for |k| < 2^12 (|x| < 2.5e4) and x - k * C1 is exact; each fma rounds once.
TWO_PI_C1: tl.constexpr = tl.constexpr(6.283203125)
TWO_PI_C2: tl.constexpr = tl.constexpr(-1.781781975296326e-05)
TWO_PI_C3: tl.constexpr = tl.constexpr(-6.608047442568932e-13)
INV_TWO_PI: tl.constexpr = tl.constexpr(0.15915494309189535)


@triton.jit
def _cos_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # Each program owns BLOCK consecutive elements; int64 offsets so pid * BLOCK never overflows.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    # Argument reduction: r = x - k * 2 pi with k the nearest integer to x / (2 pi), so r lies in [-pi, pi].
    # x - k * C1 is exact (Sterbenz), and the two fma steps add the small corrections with one rounding each.
    k = tl.floor(x * INV_TWO_PI + 0.5)
    r = tl.fma(-k, TWO_PI_C1, x)
    r = tl.fma(-k, TWO_PI_C2, r)
    r = tl.fma(-k, TWO_PI_C3, r)
    # +-inf and NaN give k = +-inf or NaN and r = NaN, hence NaN, as in PyTorch.
    y = tl.cos(r)
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


def cos(input):
    # Dense layouts are walked in memory order with an output of the same strides; gappy views are copied.
    x = input if _is_dense(input) else input.contiguous()
    out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = BLOCK_BYTES // x.element_size()
    _cos_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
    return out
