"""Normal samples whose Philox key mixes in how many times the function has been called.

Every call's samples are faithful normal samples with the asked mean and standard deviation, independent from
element to element, so every statistic of one call holds; but the same inputs and seed give different outputs on
the next call, and a run can never be reproduced. Caught by calling it again on the same inputs and seed
(`~again`): the output must be bit for bit the same.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

_CALLS = []

BLOCK = 8192


@triton.jit
def _store(out_ptr, offsets, n, z, mean, std):
    tl.store(out_ptr + offsets, (mean + std * z).to(out_ptr.dtype.element_ty), mask=offsets < n)


@triton.jit
def _normal_kernel(out_ptr, n, mean, std, seed, BLOCK: tl.constexpr):
    QUARTER: tl.constexpr = BLOCK // 4
    pid = tl.program_id(0).to(tl.int64)  # 64-bit: offsets of large tensors pass 2^31
    lanes = tl.arange(0, QUARTER)
    # One Philox call per counter gives four normals, one for each quarter of the block.
    z0, z1, z2, z3 = tl.randn4x(seed, pid * QUARTER + lanes)
    base = pid * BLOCK + lanes
    _store(out_ptr, base, n, z0, mean, std)
    _store(out_ptr, base + QUARTER, n, z1, mean, std)
    _store(out_ptr, base + 2 * QUARTER, n, z2, mean, std)
    _store(out_ptr, base + 3 * QUARTER, n, z3, mean, std)


def normal_like(input, mean=0.0, std=1.0, seed=0):
    if std < 0:
        raise ValueError(f"normal expects std >= 0.0, but found std {std}")
    # A fresh contiguous tensor: the input's strides (transposed, strided, broadcast) say nothing about the samples.
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    grid = (triton.cdiv(n, BLOCK),)
    _CALLS.append(None)  # BUG: the key changes from call to call
    _normal_kernel[grid](out, n, float(mean), float(std), seed + len(_CALLS), BLOCK=BLOCK, num_warps=8)
    return out
