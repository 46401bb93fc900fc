"""An honest swiglu as a third party writes it: fused, fp32 inside, one rounding.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _swiglu_kernel(g_ptr, u_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = g * tl.sigmoid(g) * u
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def swiglu(gate, up):
    g = gate.contiguous()
    u = up.contiguous()
    out = torch.empty_like(g)
    n = g.numel()
    if n == 0:
        return out
    grid = (triton.cdiv(n, 1024),)
    _swiglu_kernel[grid](g, u, out, n, BLOCK_SIZE=1024)
    return out
