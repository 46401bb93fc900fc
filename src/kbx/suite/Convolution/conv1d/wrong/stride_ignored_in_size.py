"""Sizes the output as if the stride were 1: OL = L + 2*pad - dilation*(k - 1).

The kernel itself steps through the input by the stride, but the output is allocated and indexed with the
stride-1 length, so every strided workload returns a tensor of the wrong length (and fills it past the
strided positions with windows that start beyond the input).
"""

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_SHAPE"


@triton.autotune(
    configs=[
        # The CPU interpreter runs only the first config and pays per loop step and per tile MAC: a mid-sized one.
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 32, "BLOCK_K": 32}, num_stages=3, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 32}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 16}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 16}, num_stages=4, num_warps=4),
    ],
    key=["M", "OG", "CG", "KS"],
)
@triton.jit
def _conv1d_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,
    M, OL, L, CG, OG, C_OUT,
    stride_xn, stride_xl, stride_xc,
    KS: tl.constexpr, STRIDE: tl.constexpr, PAD: tl.constexpr, DIL: tl.constexpr,
    HAS_BIAS: tl.constexpr, PRECISION: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(0)
    g = tl.program_id(1)
    num_pid_n = tl.cdiv(OG, BLOCK_N)
    pid_m = pid // num_pid_n  # neighbouring programs share rows (the A gather) and sweep the columns
    pid_n = pid % num_pid_n

    # --- Output positions of this tile: m -> (n, x). Rows past M are clamped and dropped at the store. ---
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    m = tl.minimum(offs_m, M - 1)
    ox = m % OL
    n = m // OL
    x_row = x_ptr + n.to(tl.int64) * stride_xn + (g * CG).to(tl.int64) * stride_xc
    ix0 = ox * STRIDE - PAD  # input position of tap 0

    offs_o = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    o_ok = offs_o < OG
    offs_k = tl.arange(0, BLOCK_K)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    c_blocks = tl.cdiv(CG, BLOCK_K)
    for step in range(0, KS * c_blocks):
        s = step // c_blocks
        c = (step % c_blocks) * BLOCK_K + offs_k
        c_ok = c < CG
        ix = ix0 + s * DIL
        inside = (ix >= 0) & (ix < L)  # zero padding
        a_ptrs = x_row[:, None] + (ix * stride_xl)[:, None] + c[None, :] * stride_xc
        a = tl.load(a_ptrs, mask=inside[:, None] & c_ok[None, :], other=0.0)
        # Repacked weight (k, Cg, C_out): row (s, c) holds every output channel contiguously.
        w_ptrs = w_ptr + (s * CG + c)[:, None] * C_OUT + (g * OG + offs_o)[None, :]
        b = tl.load(w_ptrs, mask=c_ok[:, None] & o_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)

    # --- Epilogue: bias in fp32, one rounding, store channels-last (row m, channel g*OG + o). ---
    if HAS_BIAS:
        bias = tl.load(b_ptr + g * OG + offs_o, mask=o_ok, other=0.0)
        acc += bias.to(tl.float32)[None, :]
    out_ptrs = out_ptr + offs_m.to(tl.int64)[:, None] * C_OUT + (g * OG + offs_o)[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & o_ok[None, :])


def _single(value):
    return value if isinstance(value, int) else value[0]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    N, C_in, L = x.shape
    C_out, CG, KS = weight.shape
    assert C_in == CG * groups and C_out % groups == 0, "channels do not match groups"
    stride, dilation = _single(stride), _single(dilation)
    if padding == "valid":
        pad_lo = pad_hi = 0
    elif padding == "same":
        total = dilation * (KS - 1)  # as torch: the odd element goes at the end
        pad_lo, pad_hi = total // 2, total - total // 2
    else:
        pad_lo = pad_hi = _single(padding)
    OL = L + pad_lo + pad_hi - dilation * (KS - 1)

    x = x.transpose(1, 2).contiguous().transpose(1, 2)  # channels-last storage, same (N, C, L) indexing
    w = weight.permute(2, 1, 0).contiguous()  # (k, Cg, C_out)
    out = torch.empty((N, OL, C_out), device=x.device, dtype=x.dtype)
    M, OG = N * OL, C_out // groups
    if M > 0 and C_out > 0:
        sxn, sxc, sxl = x.stride()
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(OG, meta["BLOCK_N"]), groups)
        _conv1d_kernel[grid](
            x, w, bias if bias is not None else w, out,
            M, OL, L, CG, OG, C_out,
            sxn, sxl, sxc,
            KS=KS, STRIDE=stride, PAD=pad_lo, DIL=dilation,
            HAS_BIAS=bias is not None, PRECISION="ieee" if x.dtype == torch.float32 else "tf32",
        )
    out = out.transpose(1, 2)  # (N, C_out, OL) view of the channels-last result
    return out[0] if unbatched else out
