"""honest/scatter_atomic.py with the weight addressed as a contiguous array (strides (OG k, k, 1)), never made
contiguous.

Right for a freshly allocated weight, which every workload but one has; `check_outpad_tuple` passes a transposed
weight (its last two dims stored column-major), so the kernel reads taps of other channels and positions and fails
there.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _scatter_taps(x_ptr, w_ptr, buf_ptr, M, L, OL, CG, OG, K, STRIDE, PAD, DIL,
                  sxn, sxc, sxl, swi, swo, sws,
                  PRECISION: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    g = tl.program_id(2)
    C_OUT = OG * tl.num_programs(2)
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    m_ok = rm < M
    ix = rm % L
    nn = (rm // L).to(tl.int64)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    n_ok = rn < OG
    o = (g * OG + rn).to(tl.int64)
    rk = tl.arange(0, BLOCK_K)
    x_rows = x_ptr + nn * sxn + ix.to(tl.int64) * sxl
    for s in range(0, K):
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for c0 in range(0, CG, BLOCK_K):
            c = c0 + rk
            c_ok = c < CG
            ci = (g * CG + c).to(tl.int64)
            a = tl.load(x_rows[:, None] + ci[None, :] * sxc, mask=m_ok[:, None] & c_ok[None, :], other=0.0)
            b = tl.load(w_ptr + ci[:, None] * swi + rn[None, :] * swo + s * sws,
                        mask=c_ok[:, None] & n_ok[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
        ox = ix * STRIDE - PAD + s * DIL
        ok = m_ok & (ox >= 0) & (ox < OL)
        dst = buf_ptr + (nn * C_OUT * OL + ox)[:, None] + o[None, :] * OL
        tl.atomic_add(dst, acc, mask=ok[:, None] & n_ok[None, :])


@triton.jit
def _bias_cast(buf_ptr, b_ptr, y_ptr, numel, C_OUT, OL, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < numel
    v = tl.load(buf_ptr + offs, mask=ok, other=0.0)
    if HAS_BIAS:
        v += tl.load(b_ptr + (offs // OL) % C_OUT, mask=ok, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, v.to(y_ptr.dtype.element_ty), mask=ok)


def _one(v):
    return int(v) if isinstance(v, int) else int(v[0])


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    x = input if input.dim() == 3 else input.unsqueeze(0)
    N, C_in, L = x.shape
    _, OG, K = weight.shape
    S, P, OP, D = _one(stride), _one(padding), _one(output_padding), _one(dilation)
    CG = C_in // groups
    C_out = OG * groups
    OL = (L - 1) * S - 2 * P + D * (K - 1) + OP + 1
    buf = torch.zeros((N, C_out, OL), dtype=torch.float32, device=x.device)
    M = N * L
    if M > 0 and C_out > 0:
        BLOCK_M, BLOCK_N, BLOCK_K = 64, 32, 32
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(OG, BLOCK_N), groups)
        _scatter_taps[grid](x, weight, buf, M, L, OL, CG, OG, K, S, P, D, *x.stride(), OG * K, K, 1,
                            PRECISION="ieee" if x.dtype == torch.float32 else "tf32",
                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    y = torch.empty((N, C_out, OL), dtype=x.dtype, device=x.device)
    if y.numel() > 0:
        BLOCK = 1024
        _bias_cast[(triton.cdiv(y.numel(), BLOCK),)](buf, bias if bias is not None else buf, y, y.numel(), C_out,
                                                     OL, HAS_BIAS=bias is not None, BLOCK=BLOCK)
    return y if input.dim() == 3 else y[0]
