"""An honest layer_norm_linear written unfused: a LayerNorm kernel writes h in the input dtype, then a tl.dot GEMM.

The first kernel normalises one row per program (two passes over the row in fp32: the mean, then the mean squared
deviation) and stores h = (x - mean) * rstd * norm_weight + norm_bias rounded to the input dtype, as
`F.layer_norm` does. The second is a plain tiled GEMM over h and weight^T (fp16/bf16 operands, fp32 accumulator),
with the bias added in the epilogue.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _layer_norm_rows(x_ptr, g_ptr, b_ptr, h_ptr, K, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * K
    h_row = h_ptr + row * K
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, K, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_row + cols, mask=cols < K, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / K
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, K, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < K
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / K + eps)
    for start in range(0, K, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < K
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        h = (x - mean) * rstd * g + b
        tl.store(h_row + cols, h.to(h_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _linear(a_ptr, w_ptr, bias_ptr, out_ptr, M, N, K,
            stride_am, stride_ak, stride_wn, stride_wk, stride_om, stride_on,
            HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn.to(tl.int64)[None, :] * stride_wn + kk[:, None] * stride_wk,
                    mask=(rn[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc += tl.dot(a, w)
    if HAS_BIAS:
        acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * stride_om + rn[None, :] * stride_on,
             acc.to(out_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def layer_norm_linear(input, norm_weight, norm_bias, weight, bias=None, eps=1e-05):
    K = input.shape[-1]
    N = weight.shape[0]
    x = input.contiguous().view(-1, K)
    M = x.shape[0]
    h = torch.empty_like(x)
    out = torch.empty((M, N), dtype=input.dtype, device=input.device)
    if M == 0 or N == 0:
        return out.view(*input.shape[:-1], N)
    _layer_norm_rows[(M,)](x, norm_weight.contiguous(), norm_bias.contiguous(), h, K, float(eps),
                           BLOCK=min(triton.next_power_of_2(K), 2048))
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _linear[grid](h, weight, bias if bias is not None else h, out, M, N, K,
                  h.stride(0), h.stride(1), weight.stride(0), weight.stride(1), out.stride(0), out.stride(1),
                  HAS_BIAS=bias is not None, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out.view(*input.shape[:-1], N)
