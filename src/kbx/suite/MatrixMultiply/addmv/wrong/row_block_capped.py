"""A GEMV that holds each row's whole reduction in one block of at most 8192 columns: longer rows are cut short.

One program per row; the block is min(next_power_of_2(K), 8192) lanes wide (capped so that it stays in
registers) and there is no loop over K. The epilogue (alpha * row_sum + beta * input, input skipped when beta is
0) is right, and so is every matrix with K <= 8192; for a longer K (the bench's 32768) the products past column
8192 are never added.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _addmv_row_kernel(c_ptr, a_ptr, v_ptr, out_ptr, K, beta, alpha, stride_c, stride_am, stride_ak, stride_v,
                      HAS_INPUT: tl.constexpr, BLOCK_K: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    k = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + row * stride_am + k * stride_ak, mask=k < K, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + k * stride_v, mask=k < K, other=0.0).to(tl.float32)
    y = tl.sum(a * v, axis=0) * alpha
    if HAS_INPUT:
        y += beta * tl.load(c_ptr + row * stride_c).to(tl.float32)
    tl.store(out_ptr + row, y.to(out_ptr.dtype.element_ty))


def addmv(input, mat, vec, beta=1, alpha=1):
    M, K = mat.shape
    c = input.expand(M)  # a single value gets stride 0
    out = torch.empty((M,), device=mat.device, dtype=mat.dtype)
    if M == 0:
        return out
    _addmv_row_kernel[(M,)](
        c, mat, vec, out, K, float(beta), float(alpha), c.stride(0), *mat.stride(), vec.stride(0),
        HAS_INPUT=beta != 0, BLOCK_K=min(triton.next_power_of_2(K), 8192),
    )
    return out
