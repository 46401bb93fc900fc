"""An honest bias_gelu as a third party writes it: the add and the erf GELU fused, fp32 inside, one rounding.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _bias_gelu_kernel(x_ptr, b_ptr, out_ptr, n_elements, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs % N, mask=mask, other=0.0).to(tl.float32)
    z = x + b
    out = 0.5 * z * (1.0 + tl.math.erf(z * 0.7071067811865476))
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def bias_gelu(input, bias):
    x = input.contiguous()
    b = bias.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    grid = (triton.cdiv(n, 1024),)
    _bias_gelu_kernel[grid](x, b, out, n, x.shape[-1], BLOCK_SIZE=1024)
    return out
