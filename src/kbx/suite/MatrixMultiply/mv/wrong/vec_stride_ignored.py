"""Reads `vec` as contiguous: element k at vec + k, never looking at `vec.stride()`.

For a strided `vec` (every other element of a wider buffer) it multiplies the matrix by a mix of the vector's
elements and the gaps between them; contiguous vectors, as in most workloads, happen to work.
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
        triton.Config({"BLOCK_M": 64, "BLOCK_K": 64}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_K": 32}, num_warps=4, num_stages=4),
    ],
    key=["M", "K", "ROW_MAJOR"],
)
@triton.jit
def _mv_kernel(
    a_ptr, v_ptr, out_ptr, M, K,
    stride_am, stride_ak, stride_v,
    ROW_MAJOR: tl.constexpr,  # only a key for the autotuner: row- and column-major want different tiles
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
        v = tl.load(v_ptr + k.to(tl.int64) * stride_v, mask=k_ok, other=0.0)
        a = tl.load(a_rows + k.to(tl.int64)[None, :] * stride_ak, mask=row_ok[:, None] & k_ok[None, :], other=0.0)
        acc += a.to(tl.float32) * v.to(tl.float32)[None, :]

    tl.store(out_ptr + rows, tl.sum(acc, axis=1).to(out_ptr.dtype.element_ty), mask=row_ok)


def mv(input, vec):
    M, K = input.shape
    assert vec.shape == (K,), f"vec has shape {tuple(vec.shape)}, expected ({K},)"
    out = torch.empty((M,), device=input.device, dtype=input.dtype)
    if M == 0:
        return out
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]),)
    _mv_kernel[grid](input, vec, out, M, K, *input.stride(), 1,
                     ROW_MAJOR=input.stride(1) == 1)
    return out
