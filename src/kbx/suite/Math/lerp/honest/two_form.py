"""An honest lerp as a third party writes it: the two-sided form.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _lerp_kernel(a_ptr, b_ptr, w_ptr, out_ptr, n_elements, w_scalar, W_IS_TENSOR: tl.constexpr,
                 BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if W_IS_TENSOR:
        w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    else:
        w = w_scalar
    # the two-sided form (exact at w = 0 and w = 1)
    res = tl.where(tl.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1.0 - w))
    tl.store(out_ptr + offs, res.to(out_ptr.dtype.element_ty), mask=mask)


def lerp(input, end, weight):
    if isinstance(weight, torch.Tensor):
        a, b, w = torch.broadcast_tensors(input, end, weight)
        w = w.contiguous()
        w_is_tensor, w_scalar = True, 0.0
    else:
        a, b = torch.broadcast_tensors(input, end)
        w, w_is_tensor, w_scalar = None, False, float(weight)
    a = a.contiguous()
    b = b.contiguous()
    out = torch.empty(a.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    grid = (triton.cdiv(n, 1024),)
    _lerp_kernel[grid](a, b, w if w is not None else a, out, n, w_scalar, W_IS_TENSOR=w_is_tensor, BLOCK_SIZE=1024)
    return out
