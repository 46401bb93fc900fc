"""An honest addmm as a third party writes it: tiled tl.dot GEMM, fp32 epilogue alpha * acc + beta * input (beta != 0).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _addmm_kernel(inp_ptr, a_ptr, b_ptr, c_ptr, M, N, K, sim, sin, sam, sak, sbk, sbn, scm, scn, beta, alpha,
                  USE_INPUT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    out_mask = (rm[:, None] < M) & (rn[None, :] < N)
    res = alpha * acc
    if USE_INPUT:
        bias = tl.load(inp_ptr + rm[:, None] * sim + rn[None, :] * sin, mask=out_mask, other=0.0).to(tl.float32)
        res += beta * bias
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, res.to(c_ptr.dtype.element_ty), mask=out_mask)


def addmm(input, mat1, mat2, beta=1, alpha=1):
    M, K = mat1.shape
    N = mat2.shape[1]
    inp = input.expand(M, N)
    out = torch.empty((M, N), dtype=mat1.dtype, device=mat1.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _addmm_kernel[grid](inp, mat1, mat2, out, M, N, K, inp.stride(0), inp.stride(1), mat1.stride(0), mat1.stride(1),
                        mat2.stride(0), mat2.stride(1), out.stride(0), out.stride(1), float(beta), float(alpha),
                        USE_INPUT=beta != 0, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out
