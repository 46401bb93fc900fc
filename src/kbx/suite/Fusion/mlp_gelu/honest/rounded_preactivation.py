"""An honest mlp_gelu: one generic tl.dot linear kernel launched twice, GELU in the first launch's epilogue.

Each launch tiles its output on a 2-D grid and accumulates the products in fp32 from fp16/bf16 operand tiles. The
first launch adds b1 and rounds the pre-activation z to the input dtype, as `F.linear` returns it, then applies
the exact GELU 0.5 z (1 + erf(z / sqrt 2)) in fp32 to that rounded value and stores h in the input dtype. The
second launch is the same kernel with b2 and no activation.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _linear_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K, stride_xm, stride_xk, stride_wn, stride_wk,
                   APPLY_GELU: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rm.to(tl.int64)[:, None] * stride_xm + rk[None, :] * stride_xk
    w_ptrs = w_ptr + rn.to(tl.int64)[None, :] * stride_wn + rk[:, None] * stride_wk
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        x = tl.load(x_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k0), other=0.0)
        w = tl.load(w_ptrs, mask=(rn[None, :] < N) & (rk[:, None] < K - k0), other=0.0)
        acc = tl.dot(x, w, acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    out = acc.to(out_ptr.dtype.element_ty)
    if APPLY_GELU:
        z = out.to(tl.float32)
        out = (0.5 * z * (1.0 + tl.math.erf(z * 0.7071067811865476))).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], out,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _linear(x, w, b, apply_gelu):
    M, K = x.shape
    N = w.shape[0]
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _linear_kernel[grid](x, w, b, out, M, N, K, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                         APPLY_GELU=apply_gelu, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out


def mlp_gelu(input, w1, b1, w2, b2):
    x = input.reshape(-1, input.shape[-1])
    h = _linear(x, w1, b1.contiguous(), True)
    out = _linear(h, w2, b2.contiguous(), False)
    return out.view(*input.shape[:-1], w2.shape[0])
