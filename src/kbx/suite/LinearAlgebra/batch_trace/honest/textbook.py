"""An honest batch_trace as a third party writes it: one program per matrix, strided diagonal loads, fp32 sum.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _trace_kernel(x_ptr, y_ptr, D, sb, sm, sn, BLOCK_SIZE: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    base = x_ptr + b * sb
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, D, BLOCK_SIZE):
        i = start + tl.arange(0, BLOCK_SIZE).to(tl.int64)
        acc += tl.load(base + i * (sm + sn), mask=i < D, other=0.0).to(tl.float32)
    tl.store(y_ptr + b, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))


def batch_trace(input):
    M, N = input.shape[-2], input.shape[-1]
    x = input.reshape(-1, M, N)
    B = x.shape[0]
    D = min(M, N)
    y = torch.empty(B, dtype=input.dtype, device=input.device)
    if B > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(D, 1)), 1024)
        _trace_kernel[(B,)](x, y, D, x.stride(0), x.stride(1), x.stride(2), BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input.shape[:-2])
