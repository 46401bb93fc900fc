"""An honest linear_w8a8 that quantizes the activations inside the GEMM, from a precomputed per-token scale.

A first kernel (one program per token row) finds each row's absolute maximum and stores the scale amax / 127
and its reciprocal (1 and 1 for an all-zero row). The GEMM kernel loads fp16/bf16 activation tiles through
their strides, quantizes them in registers (multiply by the reciprocal, round half to even with the
1.5 * 2^23 magic-number trick, clamp to +-127, cast to int8), and runs `tl.dot` against the int8 weight tiles
into an int32 accumulator. The epilogue forms acc * (a_s[m] * w_s[n]) + bias in fp32 (the two scales
multiplied first) and rounds once. No int8 activation tensor is written (the suite's kernel writes one first).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _token_scales(x_ptr, scale_ptr, inv_ptr, K, sr, sk, BLOCK_K: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    lanes = tl.arange(0, BLOCK_K)
    amax = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = (k0 + lanes).to(tl.int64)
        x = tl.load(x_ptr + row * sr + kk * sk, mask=kk < K, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    m = tl.max(amax, axis=0)
    zero = m == 0.0
    tl.store(scale_ptr + row, tl.where(zero, 1.0, m / 127.0))
    tl.store(inv_ptr + row, tl.where(zero, 1.0, 127.0 / tl.where(zero, 1.0, m)))


@triton.jit
def _w8a8_gemm(x_ptr, w_ptr, xs_ptr, xinv_ptr, ws_ptr, b_ptr, out_ptr, M, N, K, sxm, sxk, swn, swk,
               HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    inv = tl.load(xinv_ptr + rm, mask=m_ok, other=1.0)[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        k_ok = kk < K
        x = tl.load(x_ptr + rm.to(tl.int64)[:, None] * sxm + kk[None, :] * sxk,
                    mask=m_ok[:, None] & k_ok[None, :], other=0.0).to(tl.float32)
        y = x * inv
        r = (y + 12582912.0) - 12582912.0  # 1.5 * 2^23: rounds |y| < 2^22 to an integer, ties to even
        xq = tl.minimum(tl.maximum(r, -127.0), 127.0).to(tl.int8)
        wq = tl.load(w_ptr + rn.to(tl.int64)[None, :] * swn + kk[:, None] * swk,
                     mask=k_ok[:, None] & n_ok[None, :], other=0)
        acc = tl.dot(xq, wq, acc, out_dtype=tl.int32)
    a_s = tl.load(xs_ptr + rm, mask=m_ok, other=0.0)
    w_s = tl.load(ws_ptr + rn, mask=n_ok, other=0.0)
    out = acc.to(tl.float32) * (a_s[:, None] * w_s[None, :])
    if HAS_BIAS:
        out += tl.load(b_ptr + rn, mask=n_ok, other=0.0).to(tl.float32)[None, :]
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], out.to(out_ptr.dtype.element_ty),
             mask=m_ok[:, None] & n_ok[None, :])


def linear_w8a8(input, weight, weight_scale, bias=None):
    K = input.shape[-1]
    N = weight.shape[0]
    x = input.reshape(-1, K)  # a view where the leading dims merge; a copy otherwise
    M = x.shape[0]
    out = torch.empty((M, N), dtype=input.dtype, device=input.device)
    if M > 0 and N > 0:
        xs = torch.empty((M,), dtype=torch.float32, device=input.device)
        xinv = torch.empty_like(xs)
        _token_scales[(M,)](x, xs, xinv, K, x.stride(0), x.stride(1),
                            BLOCK_K=min(2048, triton.next_power_of_2(max(K, 16))))
        BM, BN, BK = 64, 64, 64
        _w8a8_gemm[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
            x, weight, xs, xinv, weight_scale, bias if bias is not None else weight_scale, out, M, N, K,
            x.stride(0), x.stride(1), weight.stride(0), weight.stride(1),
            HAS_BIAS=bias is not None, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return out.reshape(*input.shape[:-1], N)
