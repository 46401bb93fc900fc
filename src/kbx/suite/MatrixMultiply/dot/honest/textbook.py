"""An honest dot as a third party writes it: two stages, fp32 block partial sums over strided vectors, then one sum.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _dot_partial_kernel(a_ptr, b_ptr, partial_ptr, n, sa, sb, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    a = tl.load(a_ptr + offs * sa, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs * sb, mask=mask, other=0.0).to(tl.float32)
    tl.store(partial_ptr + pid, tl.sum(a * b, axis=0))


@triton.jit
def _dot_finish_kernel(partial_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(partial_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def dot(input, tensor):
    n = input.numel()
    BLOCK_SIZE = 1024
    n_blocks = max(triton.cdiv(n, BLOCK_SIZE), 1)
    partials = torch.zeros(n_blocks, dtype=torch.float32, device=input.device)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    if n > 0:
        _dot_partial_kernel[(n_blocks,)](input, tensor, partials, n, input.stride(0), tensor.stride(0),
                                         BLOCK_SIZE=BLOCK_SIZE)
    _dot_finish_kernel[(1,)](partials, out, n_blocks, BLOCK_SIZE=1024)
    return out
