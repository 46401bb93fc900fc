"""An honest sin with a Cody-Waite reduction by pi/2 and a quadrant switch between `tl.sin` and `tl.cos`.

k = round(x * 2/pi) is taken to the nearest integer, r = x - k * pi/2 is formed with pi/2 split in three parts (the
first two short enough that k times them is exact for |k| < 2^16, Cephes' constants), so r lies in [-pi/4, pi/4],
and the quadrant k mod 4 picks sin(r), cos(r), -sin(r) or -cos(r). Computed in fp32 and rounded once; inf and NaN
give NaN through r. The input is made contiguous and walked flat. The solution reduces by 2 pi and always calls
`tl.sin`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl

TWO_OVER_PI = tl.constexpr(0.6366197723675814)
PIO2_1 = tl.constexpr(1.5703125)
PIO2_2 = tl.constexpr(4.837512969970703125e-4)
PIO2_3 = tl.constexpr(7.54978995489188216e-8)


@triton.jit
def _sin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    k = tl.floor(x * TWO_OVER_PI + 0.5)
    r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3
    finite_k = tl.where(k == k, k, 0.0)
    finite_k = tl.minimum(tl.maximum(finite_k, -1.0e6), 1.0e6)
    quadrant = finite_k.to(tl.int32) & 3
    s = tl.sin(r)
    c = tl.cos(r)
    y = tl.where(quadrant == 0, s, tl.where(quadrant == 1, c, tl.where(quadrant == 2, -s, -c)))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def sin(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = 1024
    _sin_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out
