"""Handles the mask's broadcast strides but reads the input at the output's flat position.

The mask is addressed correctly, yet the input is assumed row-major: for a transposed or strided input the
flat position names a different element (or the padding between elements), so the unmasked outputs are wrong.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

MAX_DIMS = 4


@triton.jit
def _masked_fill_kernel(
    x_ptr, m_ptr, out_ptr, n, value,
    size1, size2, size3,
    xs0, xs1, xs2, xs3,
    ms0, ms1, ms2, ms3,
    BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    # Flat output position -> coordinates over input's (padded) shape.
    c3 = offs % size3
    rest = offs // size3
    c2 = rest % size2
    rest = rest // size2
    c1 = rest % size1
    c0 = (rest // size1).to(tl.int64)
    c1 = c1.to(tl.int64)
    c2 = c2.to(tl.int64)
    c3 = c3.to(tl.int64)
    x = tl.load(x_ptr + offs, mask=inb)
    m = tl.load(m_ptr + c0 * ms0 + c1 * ms1 + c2 * ms2 + c3 * ms3, mask=inb, other=0)
    fill = tl.full([BLOCK], value, tl.float32).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, tl.where(m != 0, fill, x), mask=inb)


def masked_fill(input, mask, value):
    assert input.dim() <= MAX_DIMS, "at most 4 dims"
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    assert n < 2**31, "more than 2^31 elements"
    # A view with stride 0 along broadcast dims; uint8 has bool's size, so this is a reinterpretation, no copy.
    m = mask.expand(input.shape).view(torch.uint8)
    pad = MAX_DIMS - input.dim()
    shape = [1] * pad + list(input.shape)
    xs = [0] * pad + list(input.stride())
    ms = [0] * pad + list(m.stride())
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _masked_fill_kernel[grid](
        input, m, out, n, float(value), shape[1], shape[2], shape[3], *xs, *ms, BLOCK=BLOCK, num_warps=4,
    )
    return out
