"""An honest atan as a third party writes it: a polynomial atanf with range reduction.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _atan_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    # atan via range reduction to |t| <= tan(pi/12)-ish and a minimax-free Taylor? use the classic Cephes split
    ax = tl.abs(x)
    big = ax > 2.414213562373095  # tan(3pi/8)
    mid = (ax > 0.4142135623730950) & (~big)  # tan(pi/8)
    z = tl.where(big, -1.0 / ax, tl.where(mid, (ax - 1.0) / (ax + 1.0), ax))
    base = tl.where(big, 1.5707963267948966, tl.where(mid, 0.7853981633974483, 0.0))
    z2 = z * z
    p = (((8.05374449538e-2 * z2 - 1.38776856032e-1) * z2 + 1.99777106478e-1) * z2 - 3.33329491539e-1) * z2 * z + z
    r = base + p
    y = tl.where(x < 0, -r, r)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def atan(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n_elements = x.numel()
    if n_elements == 0:
        return out
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    _atan_kernel[grid](x, out, n_elements, BLOCK_SIZE=1024)
    return out
