"""3-D convolution in Triton as an implicit GEMM on channels-last-3d data, fp32 accumulator, fused bias.

GEMM view. For each group g (the workloads use one), the convolution is a matrix product C = A @ B with
    rows    m = (n, z, y, x)         M = N * OD * OH * OW output voxels
    columns o                        Og = C_out / groups output channels of the group
    k = (q, r, s, c)                 K = kD * kH * kW * Cg, the reduction (Cg = C_in / groups)
A[m, k] = input[n, g*Cg + c, z*sD - pD + q*dD, y*sH - pH + r*dH, x*sW - pW + s*dW] (zero outside the volume) is
gathered tile by tile straight from the input, never materialised (no im2col buffer, which would be kD*kH*kW = 27
times the input). B[k, o] = weight[g*Og + o, c, q, r, s].

Layouts. The input is made channels-last-3d (N, D, H, W, C) once (free when it already is), so for a fixed tap
(q, r, s) the BLOCK_K channels one row of the A tile needs are contiguous: coalesced, vectorised loads. The
weight is repacked once to (kD, kH, kW, Cg, C_out), so a B tile is BLOCK_K rows of contiguous output channels.
The output is written channels-last-3d, each program storing a BLOCK_M x BLOCK_N tile of contiguous channels,
and returned as an NCDHW-shaped view of that buffer (the values torch returns; only the memory order differs).

Tiling. Program (t, g) owns output tile t of group g; neighbouring programs share the same rows (the A gather
stays in L2) and sweep the columns. The K loop is one flat loop over (tap, channel block), so the compiler can
software-pipeline the loads across the 27 taps. Padding, volume borders and a ragged last channel block are masks
on the A load (zeros add nothing). Products go through `tl.dot` on the tensor cores into an fp32 accumulator;
the bias is added in fp32 in the epilogue and the tile is rounded to the output dtype once.

Speed. bench_video_3x3x3 is 355 GFLOP over a 103 MB input (float16): compute-bound, each input voxel is re-read
from L2 once per tap. It should reach 300-450 TFLOP/s on an H100, about 0.8-1.2 ms; bench_video_stride2
(355 GFLOP, 411 MB in, 206 MB out) likewise about 0.8-1.2 ms. Only a launch of at least `_TUNE_MIN_MACS`
multiply-adds (both bench workloads, no check) is autotuned; smaller ones take the first config, as autotuning each
of the many check shapes cost minutes of GPU time and only the bench is timed.
"""

import torch
import triton
import triton.language as tl

_CONFIGS = [
    # The first config is the fixed one of small launches (and the only one the CPU interpreter runs), which pays
    # per loop step and per program there, hardly per MAC.
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=4, num_warps=8),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 32, "BLOCK_K": 32}, num_stages=3, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=4, num_warps=4),
]
_FIXED = _CONFIGS[0]
# Multiply-adds of one launch from which it is autotuned: each bench workload does 1.8e11, no smoke or check one
# (nor a perturbed copy, which never costs more) over 3.7e6.
_TUNE_MIN_MACS = 1 << 30


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


_tuned_conv3d_kernel = triton.autotune(configs=_CONFIGS, key=["M", "OG", "CG", "KD", "KH", "KW"])(_conv3d_kernel)


def _launch(macs, rows, cols, groups, *args, **consts):
    """The launch over `groups` GEMMs of rows x cols: autotuned from `_TUNE_MIN_MACS` multiply-adds up, else with
    the fixed first config (the grid reads the block sizes from META on both paths)."""
    grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_M"]) * triton.cdiv(cols, meta["BLOCK_N"]), groups)
    if macs >= _TUNE_MIN_MACS:
        _tuned_conv3d_kernel[grid](*args, **consts)
    else:
        _conv3d_kernel[grid](*args, **consts, **_FIXED.kwargs, num_warps=_FIXED.num_warps,
                             num_stages=_FIXED.num_stages)


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
        before = after = _triple(padding)
    extent = (D, H, W)
    OD, OH, OW = ((extent[i] + before[i] + after[i] - dils[i] * (ksize[i] - 1) - 1) // strides[i] + 1
                  for i in range(3))

    x = x.contiguous(memory_format=torch.channels_last_3d)  # no copy when the input already is channels-last
    w = weight.permute(2, 3, 4, 1, 0).contiguous()  # (kD, kH, kW, Cg, C_out)
    out = torch.empty((N, OD, OH, OW, C_out), device=x.device, dtype=x.dtype)
    M, OG = N * OD * OH * OW, C_out // groups
    if M > 0 and C_out > 0:
        sxn, _, sxd, sxh, sxw = x.stride()  # channel stride 1: channels-last
        _launch(
            M * C_out * KD * KH * KW * CG, M, OG, groups,
            x, w, bias if bias is not None else w, out,
            M, OD, OH, OW, D, H, W, CG, OG, C_out,
            sxn, sxd, sxh, sxw,
            KD=KD, KH=KH, KW=KW, SD=strides[0], SH=strides[1], SW=strides[2],
            PD=before[0], PH=before[1], PW=before[2], DD=dils[0], DH=dils[1], DW=dils[2],
            HAS_BIAS=bias is not None,
        )
    out = out.permute(0, 4, 1, 2, 3)  # NCDHW-shaped view of the channels-last result
    return out[0] if unbatched else out
