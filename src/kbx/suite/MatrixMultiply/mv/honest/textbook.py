"""An honest mv as a third party writes it: a GEMV, one program per block of rows, K looped in tiles, fp32 acc.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mv_kernel(a_ptr, x_ptr, y_ptr, M, K, sam, sak, sx, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M, BLOCK_K], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0).to(tl.float32)
        x = tl.load(x_ptr + kk * sx, mask=kk < K, other=0.0).to(tl.float32)
        acc += a * x[None, :]
    y = tl.sum(acc, axis=1)
    tl.store(y_ptr + rm, y.to(y_ptr.dtype.element_ty), mask=rm < M)


def mv(input, vec):
    M, K = input.shape
    y = torch.empty(M, dtype=input.dtype, device=input.device)
    if M > 0:
        BLOCK_M, BLOCK_K = 16, 128
        _mv_kernel[(triton.cdiv(M, BLOCK_M),)](input, vec, y, M, K, input.stride(0), input.stride(1), vec.stride(0),
                                               BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K)
    return y
