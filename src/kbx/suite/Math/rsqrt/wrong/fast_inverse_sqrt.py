"""The bit-trick fast inverse square root with one Newton step.

    i = 0x5f3759df - (bits(x) >> 1);  y = float(i);  y = y * (1.5 - 0.5 * x * y * y)

Popular and fast, but one Newton step leaves a relative error up to 1.75e-3: fine for graphics, far outside the fp32
tolerance (1e-5) and the fp16 one (1e-3). The bit trick also knows no special cases: rsqrt(+inf) must be 0 but comes
out -inf (status NONFINITE), and zero and negative inputs come out finite.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _rsqrt_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    i = x.to(tl.int32, bitcast=True)
    i = 0x5F3759DF - (i >> 1)
    y = i.to(tl.float32, bitcast=True)
    y = y * (1.5 - 0.5 * x * y * y)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def rsqrt(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _rsqrt_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
