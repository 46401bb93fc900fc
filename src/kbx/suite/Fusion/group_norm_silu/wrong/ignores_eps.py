"""Normalises with the default eps (1e-5) whatever eps it is given.

Right for every call that leaves eps at its default; a group whose variance is comparable to a larger eps is
normalised by the wrong amount.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

MAX_ONE_TILE = 16384  # the longest group kept in registers
TILE = 4096  # elements per tile when streaming or when packing several small groups in one program


@triton.jit
def _group_norm_silu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_rows, L, HW, G, CG, eps,
                            ONE_TILE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                            BLOCK_HW: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)  # row = n * G + g
    row_mask = rows[:, None] < n_rows
    row_start = rows[:, None] * L  # 64-bit: the bench has 2^28 elements
    lane = tl.arange(0, BLOCK_N)[None, :]

    if ONE_TILE:
        mask = row_mask & (lane < L)
        x = tl.load(x_ptr + row_start + lane, mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(x, axis=1) / L
        diff = tl.where(mask, x - mean[:, None], 0.0)  # padding lanes must not count in the variance
        rstd = tl.rsqrt(tl.sum(diff * diff, axis=1) / L + eps)
        chan = (rows % G)[:, None] * CG + lane // HW  # this element's channel
        w = tl.load(w_ptr + chan, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + chan, mask=mask, other=0.0).to(tl.float32)
        z = diff * rstd[:, None] * w + b
        y = z / (1.0 + tl.exp(-z))
        tl.store(y_ptr + row_start + lane, y.to(y_ptr.dtype.element_ty), mask=mask)
    else:
        # Sweep 1: merge per-chunk (count, mean, M2) into running statistics (Chan et al.). BLOCK_M == 1.
        count = tl.zeros([BLOCK_M], tl.float32)
        mean = tl.zeros([BLOCK_M], tl.float32)
        m2 = tl.zeros([BLOCK_M], tl.float32)
        for start in range(0, L, BLOCK_N):
            offs = start + lane
            mask = row_mask & (offs < L)
            x = tl.load(x_ptr + row_start + offs, mask=mask, other=0.0).to(tl.float32)
            n_b = tl.minimum(L - start, BLOCK_N).to(tl.float32)
            mean_b = tl.sum(x, axis=1) / n_b
            d = tl.where(mask, x - mean_b[:, None], 0.0)
            n = count + n_b
            delta = mean_b - mean
            mean += delta * (n_b / n)
            m2 += tl.sum(d * d, axis=1) + delta * delta * (count * n_b / n)
            count = n
        rstd = tl.rsqrt(m2 / L + eps)
        # Sweep 2: channel by channel, z = x * a + b with the channel's scale and shift folded in.
        g = tl.program_id(0) % G
        for ci in range(0, CG):
            c = g * CG + ci
            a = rstd * tl.load(w_ptr + c).to(tl.float32)
            shift = tl.load(b_ptr + c).to(tl.float32) - mean * a
            chan_start = row_start + ci * HW
            for start in range(0, HW, BLOCK_HW):
                offs = start + tl.arange(0, BLOCK_HW)[None, :]
                mask = row_mask & (offs < HW)
                x = tl.load(x_ptr + chan_start + offs, mask=mask, other=0.0).to(tl.float32)
                z = x * a[:, None] + shift[:, None]
                y = z / (1.0 + tl.exp(-z))
                tl.store(y_ptr + chan_start + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def group_norm_silu(input, num_groups, weight, bias, eps=1e-05):
    x = input.contiguous()
    out = torch.empty_like(x)
    if x.numel() == 0:
        return out
    N, C = x.shape[0], x.shape[1]
    assert C % num_groups == 0, f"{C} channels do not split into {num_groups} groups"
    HW = math.prod(x.shape[2:])
    CG = C // num_groups
    L = CG * HW
    n_rows = N * num_groups

    width = triton.next_power_of_2(L)
    if width <= MAX_ONE_TILE:
        one_tile, BLOCK_N = True, width
        BLOCK_M = min(max(TILE // BLOCK_N, 1), triton.next_power_of_2(n_rows))
    else:
        one_tile, BLOCK_M, BLOCK_N = False, 1, TILE
    tile = BLOCK_M * BLOCK_N
    num_warps = 4 if tile <= 2048 else 8 if tile <= 4096 else 16
    _group_norm_silu_kernel[(triton.cdiv(n_rows, BLOCK_M),)](
        x, weight.contiguous(), bias.contiguous(), out, n_rows, L, HW, num_groups, CG, 1e-05,  # BUG: eps ignored
        ONE_TILE=one_tile, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_HW=min(TILE, triton.next_power_of_2(HW)),
        num_warps=num_warps)
    return out
