"""An honest linear as a third party writes it: x reshaped to (M, K), tiled tl.dot against W^T via strides, fp32 bias.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, sxm, sxk, swn, swk, sym, syn,
                   HAS_BIAS: tl.constexpr, PRECISION: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * sxm + kk[None, :] * sxk,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rn[None, :] * swn + kk[:, None] * swk,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    out_mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(y_ptr + rm[:, None] * sym + rn[None, :] * syn, acc.to(y_ptr.dtype.element_ty), mask=out_mask)


def linear(input, weight, bias=None):
    K = input.shape[-1]
    N = weight.shape[0]
    x = input.reshape(-1, K)
    M = x.shape[0]
    y = torch.empty((M, N), dtype=input.dtype, device=input.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    precision = "ieee" if input.dtype == torch.float32 else "tf32"
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    b = bias if bias is not None else weight
    _linear_kernel[grid](x, weight, b, y, M, N, K, x.stride(0), x.stride(1), weight.stride(0), weight.stride(1),
                         y.stride(0), y.stride(1), HAS_BIAS=bias is not None, PRECISION=precision,
                         BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return y.view(tuple(input.shape[:-1]) + (N,))
