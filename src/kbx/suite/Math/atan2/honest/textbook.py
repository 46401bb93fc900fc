"""An honest atan2 as a third party writes it: a polynomial atan with quadrant and signed-zero fixes.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _atan_01(z):
    # Cephes atanf on [0, 1]: reduce by tan(pi/8) then an odd polynomial
    mid = z > 0.4142135623730950
    t = tl.where(mid, (z - 1.0) / (z + 1.0), z)
    base = tl.where(mid, 0.7853981633974483, 0.0)
    t2 = t * t
    p = (((8.05374449538e-2 * t2 - 1.38776856032e-1) * t2 + 1.99777106478e-1) * t2 - 3.33329491539e-1) * t2 * t + t
    return base + p


@triton.jit
def _atan2_kernel(y_ptr, x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    ax = tl.abs(x)
    ay = tl.abs(y)
    mx = tl.maximum(ax, ay)
    mn = tl.minimum(ax, ay)
    both_inf = (mx == float("inf")) & (mn == float("inf"))
    ratio = tl.where(mx == 0.0, 0.0, mn / mx)
    ratio = tl.where(both_inf, 1.0, ratio)
    r = _atan_01(ratio)
    r = tl.where(ay > ax, 1.5707963267948966 - r, r)
    # negative x, including -0.0 (1/-0 = -inf)
    x_neg = (x < 0) | ((x == 0) & (1.0 / x < 0))
    r = tl.where(x_neg, 3.141592653589793 - r, r)
    y_neg = (y < 0) | ((y == 0) & (1.0 / y < 0))
    r = tl.where(y_neg, -r, r)
    r = tl.where((x != x) | (y != y), x + y, r)
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=mask)


def atan2(input, other):
    y, x = torch.broadcast_tensors(input, other)
    y = y.contiguous()
    x = x.contiguous()
    out = torch.empty(y.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    grid = (triton.cdiv(n, 1024),)
    _atan2_kernel[grid](y, x, out, n, BLOCK_SIZE=1024)
    return out
