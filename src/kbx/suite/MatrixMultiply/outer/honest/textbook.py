"""An honest outer as a third party writes it: a 2-D tile grid over strided vectors, fp32 product rounded once.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _outer_kernel(a_ptr, b_ptr, y_ptr, n, m, sa, sb, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr):
    ri = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    rj = tl.program_id(1).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    a = tl.load(a_ptr + ri * sa, mask=ri < n, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + rj * sb, mask=rj < m, other=0.0).to(tl.float32)
    out = a[:, None] * b[None, :]
    mask = (ri[:, None] < n) & (rj[None, :] < m)
    tl.store(y_ptr + ri[:, None] * m + rj[None, :], out.to(y_ptr.dtype.element_ty), mask=mask)


def outer(input, vec2):
    n = input.shape[0]
    m = vec2.shape[0]
    y = torch.empty((n, m), dtype=input.dtype, device=input.device)
    if n > 0 and m > 0:
        BLOCK_N, BLOCK_M = 32, 128
        grid = (triton.cdiv(n, BLOCK_N), triton.cdiv(m, BLOCK_M))
        _outer_kernel[grid](input, vec2, y, n, m, input.stride(0), vec2.stride(0), BLOCK_N=BLOCK_N, BLOCK_M=BLOCK_M)
    return y
