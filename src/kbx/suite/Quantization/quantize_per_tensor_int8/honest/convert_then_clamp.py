"""An honest quantize_per_tensor_int8 that converts round(y) to int32 before it adds the zero point and clamps, in
integers. Past 2^31 (`check_huge`'s |y| reach 1e30) that is right because a GPU's float -> int32 conversion
saturates (to 2^31 - 1 or -2^31, which the clamp then takes to 127 or -128); C's cast, and the Triton
interpreter's before kbx emulated the GPU, would overflow there.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(y):
    """Round fp32 to the nearest integer, ties to the even neighbour (torch.round); exact for |y| < 2^23."""
    a = tl.abs(y)
    f = tl.floor(a)
    frac = a - f  # exact
    f_is_odd = f - 2.0 * tl.floor(0.5 * f)  # 1.0 when f is odd, else 0.0
    r = f + tl.where(frac > 0.5, 1.0, 0.0) + tl.where(frac == 0.5, f_is_odd, 0.0)
    return tl.where(y < 0, -r, r)


@triton.jit
def _quantize_kernel(x_ptr, q_ptr, n, scale, zero_point, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = tl.math.div_rn(x, tl.full((BLOCK,), scale, tl.float32))
    q = _round_half_even(y).to(tl.int32) + zero_point  # saturates past 2^31
    q = tl.minimum(tl.maximum(q, -128), 127)
    tl.store(q_ptr + offsets, q.to(tl.int8), mask=mask)


def quantize_per_tensor_int8(input, scale, zero_point):
    x = input.contiguous()
    q = torch.empty(x.shape, device=x.device, dtype=torch.int8)
    n = x.numel()
    BLOCK = 2048
    grid = (triton.cdiv(n, BLOCK),)
    _quantize_kernel[grid](x, q, n, float(scale), float(zero_point), BLOCK=BLOCK, num_warps=8)
    return q
