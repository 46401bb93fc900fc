"""Reads `vec` as contiguous: element k at vec + k, never looking at `vec.stride()`.

The stride is passed to the kernel but the vector load indexes it as dense. A `vec` that is a strided view (a
column of a matrix, every other element of a wider buffer) then multiplies the matrix by a mix of the vector's
elements and the gaps between them; contiguous vectors happen to work.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.autotune(
    configs=[
        # The CPU interpreter runs only the first config; a large tile means fewer (slow) interpreted steps.
        triton.Config({"BLOCK_M": 64, "BLOCK_K": 128}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 16, "BLOCK_K": 256}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 32, "BLOCK_K": 256}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 8, "BLOCK_K": 512}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_K": 32}, num_warps=4, num_stages=4),
    ],
    key=["M", "K", "ROW_MAJOR", "HAS_INPUT"],
)
@triton.jit
def _addmv_kernel(
    c_ptr, a_ptr, v_ptr, out_ptr, M, K, beta, alpha,
    stride_c, stride_am, stride_ak, stride_v,
    ROW_MAJOR: tl.constexpr, HAS_INPUT: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < M
    offs_k = tl.arange(0, BLOCK_K)
    a_rows = a_ptr + rows.to(tl.int64)[:, None] * stride_am

    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + offs_k
        k_ok = k < K
        v = tl.load(v_ptr + k, mask=k_ok, other=0.0)
        a = tl.load(a_rows + k.to(tl.int64)[None, :] * stride_ak, mask=row_ok[:, None] & k_ok[None, :], other=0.0)
        acc += a.to(tl.float32) * v.to(tl.float32)[None, :]

    # --- Epilogue: alpha * (mat @ vec) + beta * input in fp32, one rounding. ---
    y = tl.sum(acc, axis=1) * alpha
    if HAS_INPUT:
        y += beta * tl.load(c_ptr + rows * stride_c, mask=row_ok, other=0.0).to(tl.float32)
    tl.store(out_ptr + rows, y.to(out_ptr.dtype.element_ty), mask=row_ok)


def addmv(input, mat, vec, beta=1, alpha=1):
    M, K = mat.shape
    assert vec.shape == (K,), f"vec has shape {tuple(vec.shape)}, expected ({K},)"
    c = input.expand(M)  # a single value gets stride 0
    out = torch.empty((M,), device=mat.device, dtype=mat.dtype)
    if M == 0:
        return out
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]),)
    _addmv_kernel[grid](
        c, mat, vec, out, M, K, float(beta), float(alpha),
        c.stride(0), *mat.stride(), vec.stride(0),
        ROW_MAJOR=mat.stride(1) == 1, HAS_INPUT=beta != 0,
    )
    return out
