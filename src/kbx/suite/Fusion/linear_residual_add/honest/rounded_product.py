"""An honest linear_residual_add that rounds the biased product to the dtype before adding the residual.

A tiled tl.dot GEMM (fp32 operands as true fp32 products, `input_precision="ieee"`, since the task forbids TF32;
bf16 operands with an fp32 accumulator) whose epilogue does what the eager composition does: adds the bias in
fp32, rounds z = input @ weight^T + bias to the dtype (the tensor `F.linear` returns), then adds the residual in
fp32 and rounds again. The residual is read through its strides.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64}, num_warps=4, num_stages=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _linear_residual(x_ptr, w_ptr, b_ptr, r_ptr, out_ptr, M, N, K,
                     stride_xm, stride_xk, stride_wn, stride_wk, stride_rm, stride_rn,
                     HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm.to(tl.int64)[:, None] * stride_xm + kk[None, :] * stride_xk,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rn.to(tl.int64)[None, :] * stride_wn + kk[:, None] * stride_wk,
                    mask=(rn[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    z = acc.to(out_ptr.dtype.element_ty).to(tl.float32)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    r = tl.load(r_ptr + rm.to(tl.int64)[:, None] * stride_rm + rn[None, :] * stride_rn, mask=mask, other=0.0)
    out = z + r.to(tl.float32)
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], out.to(out_ptr.dtype.element_ty), mask=mask)


def linear_residual_add(input, weight, bias, residual):
    K = input.shape[-1]
    N = weight.shape[0]
    x = input.reshape(-1, K)
    r = residual.reshape(-1, N)
    M = x.shape[0]
    out = torch.empty((M, N), dtype=input.dtype, device=input.device)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
    _linear_residual[grid](x, weight, bias if bias is not None else x, r, out, M, N, K,
                           x.stride(0), x.stride(1), weight.stride(0), weight.stride(1), r.stride(0), r.stride(1),
                           HAS_BIAS=bias is not None)
    return out.view(*input.shape[:-1], N)
