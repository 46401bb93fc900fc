"""Returns the products in float32 whatever the inputs' dtype, to keep them exact.

A product of two fp16 or bf16 values is exact in fp32, so writing fp32 looks like a free gain in accuracy. But
torch.outer returns the inputs' dtype (and fp16 products beyond 65504 become inf there); an fp32 result has the
wrong dtype and twice the bytes to write. Right for float32 inputs only.
"""

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_DTYPE"


@triton.autotune(
    configs=[
        # The CPU interpreter runs only the first config; a large tile means fewer (slow) interpreted programs.
        triton.Config({"BLOCK_N": 64, "BLOCK_M": 512}, num_warps=8),
        triton.Config({"BLOCK_N": 32, "BLOCK_M": 256}, num_warps=4),
        triton.Config({"BLOCK_N": 64, "BLOCK_M": 256}, num_warps=8),
        triton.Config({"BLOCK_N": 16, "BLOCK_M": 512}, num_warps=4),
        triton.Config({"BLOCK_N": 32, "BLOCK_M": 512}, num_warps=8),
        triton.Config({"BLOCK_N": 64, "BLOCK_M": 128}, num_warps=4),
    ],
    key=["N", "M"],
)
@triton.jit
def _outer_kernel(
    x_ptr, y_ptr, out_ptr, N, M,
    stride_x, stride_y, stride_on, stride_om,
    BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr,
):
    # Tile (pid_n, pid_m) from the 1-D program id: column tiles vary fastest, so consecutive programs write
    # consecutive stretches of the same rows.
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    pid_n = pid // num_pid_m
    pid_m = pid % num_pid_m

    rows = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    cols = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < N
    col_ok = cols < M

    # The two vector slices, read through their strides and widened to fp32 (products of fp16/bf16 values are
    # exact in fp32, so the one rounding below is the only one).
    x = tl.load(x_ptr + rows.to(tl.int64) * stride_x, mask=row_ok, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + cols.to(tl.int64) * stride_y, mask=col_ok, other=0.0).to(tl.float32)
    tile = x[:, None] * y[None, :]

    out_ptrs = out_ptr + rows.to(tl.int64)[:, None] * stride_on + cols[None, :] * stride_om
    tl.store(out_ptrs, tile.to(out_ptr.dtype.element_ty), mask=row_ok[:, None] & col_ok[None, :])


def outer(input, vec2):
    assert input.dim() == 1 and vec2.dim() == 1, "outer takes two 1-D tensors"
    N, M = input.shape[0], vec2.shape[0]
    out = torch.empty((N, M), device=input.device, dtype=torch.float32)  # keep the exact product
    if out.numel() == 0:
        return out
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]) * triton.cdiv(M, meta["BLOCK_M"]),)
    _outer_kernel[grid](input, vec2, out, N, M, input.stride(0), vec2.stride(0), *out.stride())
    return out
