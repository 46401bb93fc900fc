"""nan_to_num in Triton: one streaming pass, three selects per element.

nan_to_num is elementwise, so the kernel is bound by memory traffic: each element is read once and written once (8
bytes per element in fp32, 4 in fp16/bf16). The three replacement values are resolved on the host: a None posinf or
neginf becomes the largest or most negative finite value of the *input's* dtype (torch.finfo), not of fp32, because
fp32's maximum would round to +-inf when stored as fp16 or bf16. They reach the kernel as fp32 scalars, which hold
every finite fp16/bf16 value exactly, and are rounded to the dtype once when stored, as in PyTorch.

NaN is detected as x != x (the one value not equal to itself) and the infinities by comparing with +-inf; finite
elements, negative zeros included, are passed through untouched, so the result is exact.

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
def _nan_to_num_kernel(x_ptr, y_ptr, n, nan_value, posinf_value, neginf_value, BLOCK: tl.constexpr):
    # Each program owns BLOCK consecutive elements; int64 offsets so pid * BLOCK never overflows.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.where(x != x, nan_value, x)
    y = tl.where(x == float("inf"), posinf_value, y)
    y = tl.where(x == float("-inf"), neginf_value, y)
    # Finite elements are stored back unchanged; replacements are rounded to the dtype once.
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def _is_dense(x):
    """Whether x's elements fill exactly numel consecutive memory slots, its dims taken in some order."""
    expected = 1
    for size, stride in sorted(zip(x.shape, x.stride()), key=lambda dim: dim[1]):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    # Dense layouts are walked in memory order with an output of the same strides; gappy views are copied.
    x = input if _is_dense(input) else input.contiguous()
    out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    # The defaults are the input dtype's own finite extremes.
    info = torch.finfo(x.dtype)
    posinf_value = info.max if posinf is None else float(posinf)
    neginf_value = info.min if neginf is None else float(neginf)
    BLOCK = BLOCK_BYTES // x.element_size()
    _nan_to_num_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, float(nan), posinf_value, neginf_value, BLOCK=BLOCK,
                                                 num_warps=NUM_WARPS)
    return out
