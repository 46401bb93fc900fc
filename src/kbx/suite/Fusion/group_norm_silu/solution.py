"""Group norm + SiLU in one Triton kernel: the normalised, affine z is never written.

For a contiguous (N, C, *spatial) input, group (n, g) is one contiguous run of L = (C / G) * HW elements
(HW = the product of the spatial sizes), so the kernel treats the N * G groups as rows of length L; the
channel of the element at offset i of group g is g * C/G + i // HW. Inputs in other layouts (channels-last)
are made contiguous first (one copy).

* L <= 16384: `ONE_TILE`. A program loads BLOCK_M whole groups, takes mean and variance from registers
  (two-pass formula, fp32), gathers each element's channel weight and bias (C values, cached), and writes
  silu(z) = z / (1 + exp(-z)): one read and one write.
* Longer groups (the usual case in U-Nets, e.g. 16 channels x 128 x 128): one program per group. Sweep 1
  streams the group in BLOCK_N chunks and merges each chunk's (count, mean, M2) into running statistics with
  Chan's formula (as stable as two passes). Sweep 2 walks the group channel by channel, loading that channel's
  weight and bias once as scalars and folding them with the statistics into one multiply-add per element,
  z = x * a + b with a = rstd * weight[c], b = bias[c] - mean * a; no per-element division is needed.
  Sweep 2's tiles are BLOCK_HW = min(4096, next_pow2(HW)) wide, so small feature maps (32 x 32) do not leave
  most lanes masked. Two reads and one write.

Memory-bound: on an H100 (~3 TB/s) the 32 x 512 x 128 x 128 fp32 bench (1 GiB) takes about 1.1 ms
(two reads and a write), against ~5 GiB of traffic for group_norm then silu.
"""

import math

import torch
import triton
import triton.language as tl

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
        x, weight.contiguous(), bias.contiguous(), out, n_rows, L, HW, num_groups, CG, eps,
        ONE_TILE=one_tile, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_HW=min(TILE, triton.next_power_of_2(HW)),
        num_warps=num_warps)
    return out
