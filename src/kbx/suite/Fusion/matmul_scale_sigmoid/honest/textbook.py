"""An honest matmul_scale_sigmoid as a third party writes it: `tl.dot`, a `1 / (1 + exp(-s * z))` epilogue.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mm_scale_sigmoid_kernel(a_ptr, b_ptr, c_ptr, M, N, K, scale,
                             stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                             stride_cb, stride_cm, stride_cn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    bid = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_base = a_ptr + bid * stride_ab
    b_base = b_ptr + bid * stride_bb
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_base + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_base + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    out = 1.0 / (1.0 + tl.exp(-(acc * scale)))
    tl.store(c_ptr + bid * stride_cb + rm[:, None] * stride_cm + rn[None, :] * stride_cn,
             out.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_scale_sigmoid(input, other, scale):
    a = input if input.dim() == 3 else input.unsqueeze(0)
    B, M, K = a.shape
    N = other.shape[-1]
    if other.dim() == 3:
        b = other
        sbb = b.stride(0)
        sbk, sbn = b.stride(1), b.stride(2)
    else:
        b = other
        sbb = 0
        sbk, sbn = b.stride(0), b.stride(1)
    c = torch.empty((B, M, N), dtype=input.dtype, device=input.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), B)
    _mm_scale_sigmoid_kernel[grid](a, b, c, M, N, K, float(scale),
                                   a.stride(0), a.stride(1), a.stride(2), sbb, sbk, sbn,
                                   c.stride(0), c.stride(1), c.stride(2),
                                   BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c if input.dim() == 3 else c.squeeze(0)
