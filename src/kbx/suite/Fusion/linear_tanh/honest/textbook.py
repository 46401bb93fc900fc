"""An honest linear_tanh as a third party writes it: `tl.dot` with fp32 accumulation, a `2 * sigmoid(2z) - 1` epilogue.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _linear_tanh_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K,
                        stride_xm, stride_xk, stride_wn, stride_wk, stride_om, stride_on,
                        HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * stride_xm + kk[None, :] * stride_xk,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rn[None, :] * stride_wn + kk[:, None] * stride_wk,
                    mask=(rn[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc += tl.dot(a, b)
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    # tanh(z) = 2 * sigmoid(2z) - 1 (saturates cleanly, no inf/inf)
    out = 2.0 * tl.sigmoid(2.0 * acc) - 1.0
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :] * stride_on, out.to(out_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def linear_tanh(input, weight, bias=None):
    K = input.shape[-1]
    N = weight.shape[0]
    x = input.reshape(-1, K)
    M = x.shape[0]
    out = torch.empty((M, N), dtype=input.dtype, device=input.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _linear_tanh_kernel[grid](x, weight, bias if bias is not None else x, out, M, N, K,
                              x.stride(0), x.stride(1), weight.stride(0), weight.stride(1),
                              out.stride(0), out.stride(1), HAS_BIAS=bias is not None,
                              BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out.view(*input.shape[:-1], N)
