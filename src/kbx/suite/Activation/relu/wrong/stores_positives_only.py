"""Writes only the positive outputs: the zeros are left to whatever `torch.empty` handed out.

The store is masked by `x > 0` as well as by the tail, so every element where ReLU gives 0 keeps the memory the
allocator returned. Fresh pages and fresh GPU memory are zero, so where the allocator hands them out the output looks
right; a reused block holds whatever was there. The candidate worker fills new memory with NaN during correctness
calls (`kbx.evaluation.candidate.fresh_memory`), so the zeros come out NaN on every case, whatever the allocator did:
on the CPU (tests/evaluation/candidate/test_worker.py) and on a GPU (tests/gpu/test_memory_gpu.py, H200, session 26).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _relu_positive_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    in_range = offsets < n
    x = tl.load(x_ptr + offsets, mask=in_range, other=0.0)
    tl.store(y_ptr + offsets, x, mask=in_range & (x > 0))  # BUG: the zeros are never written


def relu(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        _relu_positive_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096)
    return out
