"""Treats any string `padding` as 'same'.

The author handles padding='same' (the string form models use most) with `isinstance(padding, str)` and forgets
that F.conv2d also takes padding='valid', which means no padding at all: with 'valid' this kernel pads as 'same'
and returns an output as large as the input (wrong shape and values). `check_valid` (a 3 x 2 kernel over a 9 x 8
image: 7 x 7 expected, 9 x 8 returned) catches it.
"""

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_SHAPE"

_CONFIGS = [
        # The CPU interpreter runs only the first config and pays per loop step and per tile MAC: a mid-sized one.
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 32, "BLOCK_K": 32}, num_stages=3, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 32}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 16}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 16}, num_stages=4, num_warps=4),
]
_FIXED = _CONFIGS[0]
# Multiply-adds of one launch from which it is autotuned: every bench workload does more than 1e10, no smoke or check
# one (nor a perturbed copy, which never costs more) over 2e6. Autotuning each check shape compiled every config for
# it: on an H200 under a loaded sweep the solution ran past the 300 s limit (2026-11-27).
_TUNE_MIN_MACS = 1 << 30


@triton.jit
def _conv2d_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,
    M, OH, OW, H, W, CG, OG, C_OUT,
    stride_xn, stride_xh, stride_xw, stride_xc,
    KH: tl.constexpr, KW: tl.constexpr,
    SH: tl.constexpr, SW: tl.constexpr, PH: tl.constexpr, PW: tl.constexpr, DH: tl.constexpr, DW: tl.constexpr,
    HAS_BIAS: tl.constexpr, PRECISION: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(0)
    g = tl.program_id(1)
    num_pid_n = tl.cdiv(OG, BLOCK_N)
    pid_m = pid // num_pid_n  # neighbouring programs share rows (the A gather) and sweep the columns
    pid_n = pid % num_pid_n

    # --- Output pixels of this tile: m -> (n, y, x). Rows past M are clamped and dropped at the store. ---
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    m = tl.minimum(offs_m, M - 1)
    ox = m % OW
    oy = (m // OW) % OH
    n = m // (OW * OH)
    x_row = x_ptr + n.to(tl.int64) * stride_xn + (g * CG).to(tl.int64) * stride_xc
    iy0 = oy * SH - PH  # input row of tap r = 0
    ix0 = ox * SW - PW

    offs_o = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    o_ok = offs_o < OG
    offs_k = tl.arange(0, BLOCK_K)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    c_blocks = tl.cdiv(CG, BLOCK_K)
    for step in range(0, KH * KW * c_blocks):
        tap = step // c_blocks
        c0 = (step % c_blocks) * BLOCK_K
        r = tap // KW
        s = tap % KW
        iy = iy0 + r * DH
        ix = ix0 + s * DW
        inside = (iy >= 0) & (iy < H) & (ix >= 0) & (ix < W)  # zero padding: taps off the image load 0
        c = c0 + offs_k
        c_ok = c < CG
        a_ptrs = x_row[:, None] + (iy * stride_xh + ix * stride_xw)[:, None] + c[None, :] * stride_xc
        a = tl.load(a_ptrs, mask=inside[:, None] & c_ok[None, :], other=0.0)
        # Repacked weight (kH, kW, Cg, C_out): row (tap, c) holds every output channel contiguously.
        w_ptrs = w_ptr + (tap * CG + c)[:, None] * C_OUT + (g * OG + offs_o)[None, :]
        b = tl.load(w_ptrs, mask=c_ok[:, None] & o_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)

    # --- Epilogue: bias in fp32, one rounding, store channels-last (row m, channel g*OG + o). ---
    if HAS_BIAS:
        bias = tl.load(b_ptr + g * OG + offs_o, mask=o_ok, other=0.0)
        acc += bias.to(tl.float32)[None, :]
    out_ptrs = out_ptr + offs_m.to(tl.int64)[:, None] * C_OUT + (g * OG + offs_o)[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & o_ok[None, :])


_tuned_conv2d_kernel = triton.autotune(configs=_CONFIGS, key=["M", "OG", "CG", "KH", "KW"])(
    _conv2d_kernel
)


def _launcher(macs):
    """The kernel to launch and its extra arguments: autotuned from `_TUNE_MIN_MACS` multiply-adds up, else the
    fixed first config (the grid reads the block sizes from META on both paths)."""
    if macs >= _TUNE_MIN_MACS:
        return _tuned_conv2d_kernel, {}
    return _conv2d_kernel, {**_FIXED.kwargs, "num_warps": _FIXED.num_warps, "num_stages": _FIXED.num_stages}


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    N, C_in, H, W = x.shape
    C_out, CG, KH, KW = weight.shape
    assert C_in == CG * groups and C_out % groups == 0, "channels do not match groups"
    SH, SW = _pair(stride)
    DH, DW = _pair(dilation)
    if isinstance(padding, str):  # "same"
        # As torch: total padding d*(k-1) per axis, the odd pixel on the bottom/right.
        th, tw = DH * (KH - 1), DW * (KW - 1)
        pads = (th // 2, th - th // 2, tw // 2, tw - tw // 2)
    else:
        ph, pw = _pair(padding)
        pads = (ph, ph, pw, pw)
    OH = (H + pads[0] + pads[1] - DH * (KH - 1) - 1) // SH + 1
    OW = (W + pads[2] + pads[3] - DW * (KW - 1) - 1) // SW + 1

    x = x.contiguous(memory_format=torch.channels_last)  # no copy when the input already is channels-last
    w = weight.permute(2, 3, 1, 0).contiguous()  # (kH, kW, Cg, C_out)
    out = torch.empty((N, OH, OW, C_out), device=x.device, dtype=x.dtype)
    M, OG = N * OH * OW, C_out // groups
    if M > 0 and C_out > 0:
        sxn, sxc, sxh, sxw = x.stride()
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(OG, meta["BLOCK_N"]), groups)
        launch, fixed = _launcher(M * OG * KH * KW * CG * groups)
        launch[grid](
            x, w, bias if bias is not None else w, out,
            M, OH, OW, H, W, CG, OG, C_out,
            sxn, sxh, sxw, sxc,
            KH=KH, KW=KW, SH=SH, SW=SW, PH=pads[0], PW=pads[2], DH=DH, DW=DW,
            HAS_BIAS=bias is not None, PRECISION="ieee" if x.dtype == torch.float32 else "tf32",
            **fixed,
        )
    out = out.permute(0, 3, 1, 2)  # NCHW-shaped view of the channels-last result
    return out[0] if unbatched else out
