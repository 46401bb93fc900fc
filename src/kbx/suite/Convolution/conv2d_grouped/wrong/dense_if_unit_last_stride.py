"""Copies the input only when its last dim is strided, then addresses it with the strides of a dense NCHW tensor.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard before dense indexing, and it sends
channels-last inputs to a copy, so every such workload passes. It misses an input whose planes are contiguous but
whose samples are not C_in * H * W apart: the first C_in channels of a tensor with twice as many, as after
x.chunk(2, dim=1): from the second sample on it convolves the other half.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _group_gemm(x_ptr, w_ptr, b_ptr, y_ptr, M, OH, OW, H, W, CG, OG, KH, KW, SH, SW, PH, PW, DH, DW,
                sxn, sxc, sxh, sxw, swo, swc, swh, sww,
                HAS_BIAS: tl.constexpr, PRECISION: tl.constexpr,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    g = tl.program_id(2)
    C_OUT = OG * tl.num_programs(2)
    K = CG * KH * KW

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    m_ok = rm < M
    ox = rm % OW
    oy = (rm // OW) % OH
    nn = (rm // (OW * OH)).to(tl.int64)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    n_ok = rn < OG
    o = g * OG + rn
    rk = tl.arange(0, BLOCK_K)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + rk
        k_ok = k < K
        s = k % KW
        r = (k // KW) % KH
        c = k // (KW * KH)
        iy = oy[:, None] * SH - PH + r[None, :] * DH
        ix = ox[:, None] * SW - PW + s[None, :] * DW
        ok = m_ok[:, None] & k_ok[None, :] & (iy >= 0) & (iy < H) & (ix >= 0) & (ix < W)
        a_ptrs = (x_ptr + nn[:, None] * sxn + (g * CG + c)[None, :].to(tl.int64) * sxc
                  + iy.to(tl.int64) * sxh + ix.to(tl.int64) * sxw)
        a = tl.load(a_ptrs, mask=ok, other=0.0)
        b_ptrs = w_ptr + o[None, :].to(tl.int64) * swo + (c * swc + r * swh + s * sww)[:, None]
        b = tl.load(b_ptrs, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)

    if HAS_BIAS:
        acc += tl.load(b_ptr + o, mask=n_ok, other=0.0).to(tl.float32)[None, :]
    pix = OH * OW
    y_ptrs = y_ptr + (nn * C_OUT * pix + oy * OW + ox)[:, None] + o.to(tl.int64)[None, :] * pix
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def _two(v):
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def conv2d_grouped(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    x = input if input.dim() == 4 else input.unsqueeze(0)
    # Copy only what dense indexing cannot read: a strided last dim (channels-last, transposed).
    x = x if x.stride(-1) == 1 else x.contiguous()
    N, C_in, H, W = x.shape
    C_out, CG, KH, KW = weight.shape
    SH, SW = _two(stride)
    DH, DW = _two(dilation)
    if padding == "valid":
        top, bottom, left, right = 0, 0, 0, 0
    elif padding == "same":
        eh, ew = DH * (KH - 1), DW * (KW - 1)
        top, bottom, left, right = eh // 2, eh - eh // 2, ew // 2, ew - ew // 2
    else:
        ph, pw = _two(padding)
        top, bottom, left, right = ph, ph, pw, pw
    OH = (H + top + bottom - DH * (KH - 1) - 1) // SH + 1
    OW = (W + left + right - DW * (KW - 1) - 1) // SW + 1
    OG = C_out // groups
    y = torch.empty((N, C_out, OH, OW), dtype=x.dtype, device=x.device)
    M = N * OH * OW
    if M > 0 and C_out > 0:
        BLOCK_M, BLOCK_N, BLOCK_K = 64, 16 if OG <= 16 else 32, 32
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(OG, BLOCK_N), groups)
        _group_gemm[grid](x, weight, bias if bias is not None else weight, y, M, OH, OW, H, W, CG, OG, KH, KW,
                          SH, SW, top, left, DH, DW, C_in * H * W, H * W, W, 1, *weight.stride(),
                          HAS_BIAS=bias is not None,
                          PRECISION="ieee" if x.dtype == torch.float32 else "tf32",
                          BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return y if input.dim() == 4 else y[0]
