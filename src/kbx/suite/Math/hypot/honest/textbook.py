"""An honest hypot as a third party writes it: `max * sqrt(1 + (min / max)^2)`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _hypot_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    a = tl.abs(tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32))
    b = tl.abs(tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32))
    mx = tl.maximum(a, b)
    mn = tl.minimum(a, b)
    # scaled form: max * sqrt(1 + (min/max)^2), no intermediate overflow
    r = tl.where(mx == 0.0, 0.0, mn / mx)
    h = mx * tl.sqrt(1.0 + r * r)
    h = tl.where(mx == float("inf"), float("inf"), h)
    tl.store(out_ptr + offs, h.to(out_ptr.dtype.element_ty), mask=mask)


def hypot(input, other):
    a, b = torch.broadcast_tensors(input, other)
    a = a.contiguous()
    b = b.contiguous()
    out = torch.empty(a.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    grid = (triton.cdiv(n, 1024),)
    _hypot_kernel[grid](a, b, out, n, BLOCK_SIZE=1024)
    return out
