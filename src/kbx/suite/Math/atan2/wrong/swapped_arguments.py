"""Reads the arguments in (x, y) order: returns the angle of the point (input, other), i.e. atan2(other, input).

torch.atan2(input, other) follows C's atan2(y, x): `input` is the y coordinate. Swapping them reflects every
angle about the line y = x (the result becomes pi/2 - angle, wrapped), which only coincides with the right answer
on that line. The arctangent itself (ratio reduction, polynomial, quadrants, signed zeros) is correct.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _atan2_kernel(y_ptr, x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    ax = tl.abs(x)
    ay = tl.abs(y)
    mx = tl.maximum(ax, ay)
    t = tl.minimum(ax, ay) / tl.where(mx == 0, 1.0, mx)
    t = tl.where(ax == ay, tl.where(mx == 0, 0.0, 1.0), t)
    big = t > 0.41421356237309503
    z = tl.where(big, (t - 1.0) / (t + 1.0), t)
    z2 = z * z
    p = (((8.05374449538e-2 * z2 - 1.38776856032e-1) * z2 + 1.99777106478e-1) * z2 - 3.33329491539e-1) * z2 * z + z
    r = tl.where(big, 0.7853981633974483 + p, p)
    r = tl.where(ay > ax, 1.5707963267948966 - r, r)
    r = tl.where(x.to(tl.int32, bitcast=True) < 0, 3.141592653589793 - r, r)
    r = tl.where(y.to(tl.int32, bitcast=True) < 0, -r, r)
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=mask)


def atan2(input, other):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    # (x, y) order: the first pointer is taken as y.
    _atan2_kernel[(triton.cdiv(n, 1024),)](b, a, out, n, BLOCK=1024)
    return out
