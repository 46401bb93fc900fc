"""Saturating fp8 e4m3 quantization in Triton: one pass, the e4m3 bits built with integer arithmetic.

Elementwise and bound by memory traffic: each element is read once (4 or 2 bytes) and written once (1 byte).
Each program handles BLOCK consecutive elements of a flattened, contiguous copy of the input (non-contiguous
inputs are copied once, knowingly), with 64-bit offsets and a tail mask.

Per element: y = x / scale with `tl.math.div_rn` (correctly rounded), clamped to [-448, 448]; then the e4m3
encoding of |y|, round to nearest even:
- normals (|y| >= 2^-6): in the fp32 bit pattern, keep the exponent and the top 3 mantissa bits, rounding
  the 20 dropped bits to nearest even with the usual integer trick (add 0x7FFFF plus the lowest kept bit, shift
  right by 20). A carry out of the mantissa bumps the exponent, which is what rounding up to the next binade
  means; re-biasing the exponent from 127 to 7 is a subtraction of 120 << 3. |y| <= 448 keeps the result finite.
- subnormals (|y| < 2^-6): the code is |y| / 2^-9 rounded half to even (exact scaling; 8 yields 0x08 = 2^-6,
  the smallest normal, as it should).
The sign bit goes on top and the byte is stored into a uint8 buffer that is returned viewed as float8_e4m3fn.
Building the bits by hand, rather than `.to(tl.float8e4nv)`, gives the same bits on the GPU (whose conversion
rounds to nearest even and saturates) and keeps the kernel correct under the CPU interpreter, whose fp8 cast
is not.

On an H100 (~3 TB/s) the fp32 16384 x 32768 bench moves 2.7 GB (2 GiB read, 0.5 GiB written): about 0.9 ms.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(y):
    """Round non-negative fp32 values to the nearest integer, ties to even; exact below 2^23."""
    f = tl.floor(y)
    frac = y - f
    f_is_odd = f - 2.0 * tl.floor(0.5 * f)
    return f + tl.where(frac > 0.5, 1.0, 0.0) + tl.where(frac == 0.5, f_is_odd, 0.0)


@triton.jit
def _fp8_e4m3_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = tl.math.div_rn(x, tl.full((BLOCK,), scale, tl.float32))
    y = tl.minimum(tl.maximum(y, -448.0), 448.0)  # saturate: e4m3fn has no infinities

    a = tl.abs(y)
    bits = a.to(tl.int32, bitcast=True)
    # Normals: round the fp32 mantissa to 3 bits (nearest even), re-bias the exponent from 127 to 7.
    rounded = bits + 0x7FFFF + ((bits >> 20) & 1)
    normal = (rounded >> 20) - (120 << 3)
    # Subnormals: multiples of 2^-9.
    sub = _round_half_even(a * 512.0).to(tl.int32)
    code = tl.where(a < 0.015625, sub, normal)
    code = code | tl.where(y < 0, 0x80, 0)  # (a negative value that rounds to zero keeps its sign: -0)
    tl.store(out_ptr + offsets, code.to(tl.uint8), mask=mask)


def quantize_fp8_e4m3(input, scale):
    x = input.contiguous()
    out = torch.empty(x.shape, device=x.device, dtype=torch.uint8)
    n = x.numel()
    BLOCK = 2048
    grid = (triton.cdiv(n, BLOCK),)
    _fp8_e4m3_kernel[grid](x, out, n, float(scale), BLOCK=BLOCK, num_warps=8)
    return out.view(torch.float8_e4m3fn)
