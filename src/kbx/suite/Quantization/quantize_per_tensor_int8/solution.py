"""Per-tensor int8 quantization in Triton: one pass, fp32 math, int8 out.

The operation is elementwise, so the kernel is bound by memory traffic: each element is read once (4, 2 or 2
bytes) and written once as int8 (1 byte). Each program handles BLOCK consecutive elements of a flattened,
contiguous copy of the input (non-contiguous inputs are copied once, knowingly: it keeps every load and store
fully coalesced); the mask covers the tail. Offsets are 64-bit, so tensors of more than 2^31 elements work.

Per element: widen to fp32, divide by the scale with `tl.math.div_rn` (the correctly rounded IEEE quotient the
definition asks for; Triton's plain `/` is an approximate division on the GPU), round half to even, add the zero
point, clamp to [-128, 127] and store int8. Rounding is built from floor (exact for |y| < 2^23) because the
interpreter has no libdevice `rint`; on the GPU it costs a handful of ALU ops, far below the memory time.

On an H100 (~3 TB/s) the fp32 16384 x 32768 bench moves 2.7 GB (2 GiB read, 0.5 GiB written): about 0.9 ms.
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
    q = _round_half_even(y) + zero_point  # |round(y)| <= 2^23 and |zero_point| <= 128: exact in fp32
    q = tl.minimum(tl.maximum(q, -128.0), 127.0)
    tl.store(q_ptr + offsets, q.to(tl.int8), mask=mask)


def quantize_per_tensor_int8(input, scale, zero_point):
    x = input.contiguous()
    q = torch.empty(x.shape, device=x.device, dtype=torch.int8)
    n = x.numel()
    BLOCK = 2048
    grid = (triton.cdiv(n, BLOCK),)
    _quantize_kernel[grid](x, q, n, float(scale), float(zero_point), BLOCK=BLOCK, num_warps=8)
    return q
