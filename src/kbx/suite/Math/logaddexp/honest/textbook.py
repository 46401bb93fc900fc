"""An honest logaddexp as a third party writes it: `max + log(1 + exp(-|a - b|))`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _logaddexp_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.maximum(a, b)
    d = -tl.abs(a - b)
    res = m + tl.log(1.0 + tl.exp(d))
    # equal infinities: a - b is NaN, the answer is the infinity itself
    res = tl.where(a == b, a + 0.6931471805599453, res)
    res = tl.where((a == b) & (tl.abs(a) == float("inf")), a, res)
    tl.store(out_ptr + offs, res.to(out_ptr.dtype.element_ty), mask=mask)


def logaddexp(input, other):
    a, b = torch.broadcast_tensors(input, other)
    a = a.contiguous()
    b = b.contiguous()
    out = torch.empty(a.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    grid = (triton.cdiv(n, 1024),)
    _logaddexp_kernel[grid](a, b, out, n, BLOCK_SIZE=1024)
    return out
