"""An honest linear_relu with split-K: partial products added into an fp32 buffer with atomics, then an epilogue.

The K dimension is cut into SPLIT_K slices; each (row tile, column tile, slice) program runs a tl.dot loop over
its slice (fp16/bf16 operands, fp32 accumulator) and adds its tile into a zeroed fp32 (M, N) buffer with
`tl.atomic_add`. A second, elementwise kernel adds the bias in fp32, applies max(z, 0) and rounds once to the
dtype.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _split_k_gemm(x_ptr, w_ptr, c_ptr, M, N, K, k_per_split, stride_xm, stride_xk, stride_wn, stride_wk,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    k_lo = tl.program_id(2) * k_per_split
    k_hi = tl.minimum(k_lo + k_per_split, K)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm.to(tl.int64)[:, None] * stride_xm + kk[None, :] * stride_xk,
                    mask=(rm[:, None] < M) & (kk[None, :] < k_hi), other=0.0)
        b = tl.load(w_ptr + rn.to(tl.int64)[None, :] * stride_wn + kk[:, None] * stride_wk,
                    mask=(rn[None, :] < N) & (kk[:, None] < k_hi), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.atomic_add(c_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], acc,
                  mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _bias_relu(c_ptr, b_ptr, out_ptr, numel, N, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    z = tl.load(c_ptr + offs, mask=mask, other=0.0)
    if HAS_BIAS:
        z += tl.load(b_ptr + offs % N, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(z, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def linear_relu(input, weight, bias=None):
    K = input.shape[-1]
    N = weight.shape[0]
    x = input.reshape(-1, K)
    M = x.shape[0]
    c = torch.zeros((M, N), dtype=torch.float32, device=input.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    split_k = 2 if K >= 2 * BLOCK_K else 1
    k_per_split = triton.cdiv(triton.cdiv(K, split_k), BLOCK_K) * BLOCK_K
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), triton.cdiv(K, k_per_split))
    _split_k_gemm[grid](x, weight, c, M, N, K, k_per_split, x.stride(0), x.stride(1),
                        weight.stride(0), weight.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    out = torch.empty((M, N), dtype=input.dtype, device=input.device)
    BLOCK = 1024
    _bias_relu[(triton.cdiv(M * N, BLOCK),)](c, bias if bias is not None else c, out, M * N, N,
                                            HAS_BIAS=bias is not None, BLOCK=BLOCK)
    return out.view(*input.shape[:-1], N)
