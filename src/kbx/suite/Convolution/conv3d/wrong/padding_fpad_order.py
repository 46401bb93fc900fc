"""Reads a padding triple in F.pad's order (last dimension first): (pW, pH, pD) instead of (pD, pH, pW).

`torch.nn.functional.pad` lists padding from the last dimension backwards, conv3d from depth forwards; mixing
the two conventions swaps the depth and width padding. Integer padding is unaffected, but a per-axis triple
with pD != pW gives the wrong output depth and width.
"""

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_SHAPE"


@triton.autotune(
    configs=[
        # The CPU interpreter runs only the first config and pays per loop step and per program, hardly per MAC.
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 32, "BLOCK_K": 32}, num_stages=3, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=4, num_warps=4),
    ],
    key=["M", "OG", "CG", "KD", "KH", "KW"],
)
@triton.jit
def _conv3d_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,
    M, OD, OH, OW, D, H, W, CG, OG, C_OUT,
    stride_xn, stride_xd, stride_xh, stride_xw,
    KD: tl.constexpr, KH: tl.constexpr, KW: tl.constexpr,
    SD: tl.constexpr, SH: tl.constexpr, SW: tl.constexpr,
    PD: tl.constexpr, PH: tl.constexpr, PW: tl.constexpr,
    DD: tl.constexpr, DH: tl.constexpr, DW: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(0)
    g = tl.program_id(1)
    num_pid_n = tl.cdiv(OG, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n

    # --- Output voxels of this tile: m -> (n, z, y, x). Rows past M are clamped and dropped at the store. ---
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    m = tl.minimum(offs_m, M - 1)
    ox = m % OW
    oy = (m // OW) % OH
    oz = (m // (OW * OH)) % OD
    n = m // (OW * OH * OD)
    iz0 = oz * SD - PD  # input voxel of tap (0, 0, 0)
    iy0 = oy * SH - PH
    ix0 = ox * SW - PW
    # Address of tap (0, 0, 0), channel g*Cg (channels are contiguous: stride 1). Every tap adds a scalar offset.
    x_row = x_ptr + (n.to(tl.int64) * stride_xn + iz0 * stride_xd + iy0 * stride_xh + ix0 * stride_xw + g * CG)

    offs_o = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    o_ok = offs_o < OG
    w_cols = w_ptr + g * OG + offs_o  # this tile's output channels in a row of the repacked weight
    offs_k = tl.arange(0, BLOCK_K)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    c_blocks = tl.cdiv(CG, BLOCK_K)
    for step in range(0, KD * KH * KW * c_blocks):
        tap = step // c_blocks
        c0 = (step % c_blocks) * BLOCK_K
        q = tap // (KH * KW)
        r = (tap // KW) % KH
        s = tap % KW
        iz = iz0 + q * DD
        iy = iy0 + r * DH
        ix = ix0 + s * DW
        # Zero padding: taps off the volume load 0 (and their addresses are never touched).
        inside = (iz >= 0) & (iz < D) & (iy >= 0) & (iy < H) & (ix >= 0) & (ix < W)
        tap_off = q * DD * stride_xd + r * DH * stride_xh + s * DW * stride_xw
        c = c0 + offs_k
        c_ok = c < CG
        a = tl.load(x_row[:, None] + tap_off + c[None, :], mask=inside[:, None] & c_ok[None, :], other=0.0)
        # Repacked weight (kD, kH, kW, Cg, C_out): row (tap, c) holds every output channel contiguously.
        b = tl.load(w_cols[None, :] + ((tap * CG + c) * C_OUT)[:, None], mask=c_ok[:, None] & o_ok[None, :],
                    other=0.0)
        acc = tl.dot(a, b, acc)

    # --- Epilogue: bias in fp32, one rounding, store channels-last (row m, channel g*OG + o). ---
    if HAS_BIAS:
        bias = tl.load(b_ptr + g * OG + offs_o, mask=o_ok, other=0.0)
        acc += bias.to(tl.float32)[None, :]
    out_ptrs = out_ptr + offs_m.to(tl.int64)[:, None] * C_OUT + (g * OG + offs_o)[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & o_ok[None, :])


def _triple(value):
    return (value,) * 3 if isinstance(value, int) else tuple(value)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    N, C_in, D, H, W = x.shape
    C_out, CG, KD, KH, KW = weight.shape
    assert C_in == CG * groups and C_out % groups == 0, "channels do not match groups"
    strides = _triple(stride)
    dils = _triple(dilation)
    ksize = (KD, KH, KW)
    if padding == "valid":
        before, after = (0, 0, 0), (0, 0, 0)
    elif padding == "same":
        # As torch: total padding d*(k-1) per axis, the odd voxel at the far end.
        total = [dils[i] * (ksize[i] - 1) for i in range(3)]
        before = tuple(t // 2 for t in total)
        after = tuple(t - t // 2 for t in total)
    else:
        before = after = _triple(padding)[::-1]  # (width, height, depth) like F.pad
    extent = (D, H, W)
    OD, OH, OW = ((extent[i] + before[i] + after[i] - dils[i] * (ksize[i] - 1) - 1) // strides[i] + 1
                  for i in range(3))

    x = x.contiguous(memory_format=torch.channels_last_3d)  # no copy when the input already is channels-last
    w = weight.permute(2, 3, 4, 1, 0).contiguous()  # (kD, kH, kW, Cg, C_out)
    out = torch.empty((N, OD, OH, OW, C_out), device=x.device, dtype=x.dtype)
    M, OG = N * OD * OH * OW, C_out // groups
    if M > 0 and C_out > 0:
        sxn, _, sxd, sxh, sxw = x.stride()  # channel stride 1: channels-last
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(OG, meta["BLOCK_N"]), groups)
        _conv3d_kernel[grid](
            x, w, bias if bias is not None else w, out,
            M, OD, OH, OW, D, H, W, CG, OG, C_out,
            sxn, sxd, sxh, sxw,
            KD=KD, KH=KH, KW=KW, SD=strides[0], SH=strides[1], SW=strides[2],
            PD=before[0], PH=before[1], PW=before[2], DD=dils[0], DH=dils[1], DW=dils[2],
            HAS_BIAS=bias is not None,
        )
    out = out.permute(0, 4, 1, 2, 3)  # NCDHW-shaped view of the channels-last result
    return out[0] if unbatched else out
