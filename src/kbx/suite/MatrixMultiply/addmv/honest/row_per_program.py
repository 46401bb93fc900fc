"""An honest addmv with one program per output row: chunked dot products folded into a scalar fp32 sum.

Program m walks row m of `mat` in BLOCK_K chunks; each chunk's products with `vec` are reduced with `tl.sum`
and added to a running fp32 scalar, so the order of summation is a tree within a chunk and sequential across
chunks (the suite's kernel keeps a (rows x BLOCK_K) fp32 tile and reduces it once at the end). The epilogue
computes alpha * dot + beta * input in fp32, reading `input` through its broadcast stride and not at all when
beta is 0, and rounds once.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _row_dot(c_ptr, a_ptr, v_ptr, out_ptr, K, beta, alpha, sc, sam, sak, sv,
             HAS_INPUT: tl.constexpr, BLOCK_K: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    a_row = a_ptr + row * sam
    rk = tl.arange(0, BLOCK_K)
    total = tl.zeros((), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = (k0 + rk).to(tl.int64)
        ok = kk < K
        a = tl.load(a_row + kk * sak, mask=ok, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + kk * sv, mask=ok, other=0.0).to(tl.float32)
        total += tl.sum(a * v, axis=0)
    y = alpha * total
    if HAS_INPUT:
        y += beta * tl.load(c_ptr + row * sc).to(tl.float32)
    tl.store(out_ptr + row, y.to(out_ptr.dtype.element_ty))


def addmv(input, mat, vec, beta=1, alpha=1):
    M, K = mat.shape
    out = torch.empty((M,), dtype=mat.dtype, device=mat.device)
    if M == 0:
        return out
    c = input.expand(M)
    _row_dot[(M,)](c, mat, vec, out, K, float(beta), float(alpha), c.stride(0), mat.stride(0), mat.stride(1),
                   vec.stride(0), HAS_INPUT=beta != 0, BLOCK_K=min(2048, triton.next_power_of_2(max(K, 16))))
    return out
