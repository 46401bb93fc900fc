"""Dropout whose mask ignores the `seed` argument: every call draws from one fixed Philox key.

Each output on its own is a faithful dropout: the keep rate, the scaling and the independence of the mask all hold,
so no statistic of one call can tell. But the mask is the same for every seed, one fixed pattern: two training
steps drop the same units, which is not dropout. Caught by calling it again with the seed moved
(`~reseeded`): the output must change, and here it does not.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

BLOCK = 8192


@triton.jit
def _scale_or_zero(x_ptr, out_ptr, offsets, n, u, p, scale):
    # Keep where u >= p, scale the survivors; one rounding to the output dtype.
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.where(u >= p, x * scale, 0.0)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _dropout_kernel(x_ptr, out_ptr, n, p, scale, seed, TRAINING: tl.constexpr, BLOCK: tl.constexpr):
    QUARTER: tl.constexpr = BLOCK // 4
    pid = tl.program_id(0).to(tl.int64)  # 64-bit: offsets of large tensors pass 2^31
    lanes = tl.arange(0, QUARTER)
    if TRAINING:
        # One Philox call per counter gives the uniforms of four elements, one in each quarter of the block.
        u0, u1, u2, u3 = tl.rand4x(seed, pid * QUARTER + lanes)
    else:
        # Inference: keep everything (u = 1 >= p = 0) with scale 1, an exact copy; no random numbers needed.
        u0 = tl.full((QUARTER,), 1.0, tl.float32)
        u1, u2, u3 = u0, u0, u0
    base = pid * BLOCK + lanes
    _scale_or_zero(x_ptr, out_ptr, base, n, u0, p, scale)
    _scale_or_zero(x_ptr, out_ptr, base + QUARTER, n, u1, p, scale)
    _scale_or_zero(x_ptr, out_ptr, base + 2 * QUARTER, n, u2, p, scale)
    _scale_or_zero(x_ptr, out_ptr, base + 3 * QUARTER, n, u3, p, scale)


def dropout(input, p=0.5, training=True, seed=0):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    x = input.contiguous()  # one copy for non-contiguous inputs keeps every access coalesced
    # F.dropout returns the input itself when not training; a kernel's output is a fresh tensor, so copy it.
    out = torch.empty_like(x)
    n = x.numel()
    if not training:
        p, scale = 0.0, 1.0
    else:
        scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    grid = (triton.cdiv(n, BLOCK),)
    fixed = 20240917  # BUG: one key for every call; `seed` is never used
    _dropout_kernel[grid](x, out, n, p, scale, fixed, TRAINING=training, BLOCK=BLOCK, num_warps=8)
    return out.view(input.shape)
