"""An honest glu as a third party writes it: `a / (1 + exp(-b))`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _glu_kernel(x_ptr, y_ptr, n_out, half, inner, BLOCK_SIZE: tl.constexpr):
    # x viewed as (outer, 2 * half, inner) contiguous; y as (outer, half, inner)
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_out
    i = offs % inner
    h = (offs // inner) % half
    o = offs // (inner * half)
    a_off = (o * 2 * half + h) * inner + i
    b_off = a_off + half * inner
    a = tl.load(x_ptr + a_off, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(x_ptr + b_off, mask=mask, other=0.0).to(tl.float32)
    y = a / (1.0 + tl.exp(-b))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def glu(input, dim=-1):
    x = input.contiguous()
    dim = dim % x.dim()
    size = x.shape[dim]
    half = size // 2
    inner = 1
    for s in x.shape[dim + 1:]:
        inner *= s
    out_shape = list(x.shape)
    out_shape[dim] = half
    out = torch.empty(out_shape, dtype=x.dtype, device=x.device)
    n_out = out.numel()
    if n_out == 0:
        return out
    _glu_kernel[(triton.cdiv(n_out, 1024),)](x, out, n_out, half, inner, BLOCK_SIZE=1024)
    return out
