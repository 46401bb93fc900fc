"""Computes atan(input / other), the one-argument arctangent of the ratio, and so loses the quadrant.

Right wherever `other` (the x coordinate) is positive. Where it is negative the true angle lies in the left half
plane, but atan(y / x) can only return values in [-pi/2, pi/2]: atan2(1, -1) is 3pi/4, this gives -pi/4. The
arctangent itself is accurate (range reduction and a minimax polynomial), and the undefined ratios 0/0 and
inf/inf are scrubbed to 0 so that no NaN escapes.
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
    q = y / x
    q = tl.where(q != q, 0.0, q)  # 0/0 and inf/inf: call the angle 0 rather than return NaN
    aq = tl.abs(q)
    # atan(|q|) for any |q|: invert above 1, then reduce above tan(pi/8).
    inv = aq > 1.0
    t = tl.where(inv, 1.0 / aq, aq)
    big = t > 0.41421356237309503
    z = tl.where(big, (t - 1.0) / (t + 1.0), t)
    z2 = z * z
    p = (((8.05374449538e-2 * z2 - 1.38776856032e-1) * z2 + 1.99777106478e-1) * z2 - 3.33329491539e-1) * z2 * z + z
    r = tl.where(big, 0.7853981633974483 + p, p)
    r = tl.where(inv, 1.5707963267948966 - r, r)
    r = tl.where(q < 0, -r, r)
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=mask)


def atan2(input, other):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _atan2_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
