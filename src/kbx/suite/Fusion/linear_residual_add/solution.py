"""Linear layer + bias + residual add in one Triton kernel: the residual is read in the GEMM's epilogue.

Unfused, F.linear writes the (M, N) projection, and the add reads it back with the residual and writes the sum:
one extra write and one extra read of an M x N tensor. Here each program computes one BLOCK_M x BLOCK_N tile
of x @ weight^T in an fp32 accumulator, then adds the bias and the matching residual tile and rounds once:
the projection never reaches memory, and the kernel's traffic is x, weight, residual and out, each once (plus
L2-served re-reads of the operand panels). On the bench shape (16384 x 4096 outputs) that saves 0.5 GB of
traffic in float32 and 0.27 GB in bfloat16.

Tiling. `weight` is (N, K) as in F.linear, so the B operand is weight^T: the (k, n) element lives at
weight[n, k], and passing weight's strides swapped reads it in place. The residual is read with its own
strides, so a transposed or sliced residual works without a copy. The K loop accumulates
BLOCK_M x BLOCK_K by BLOCK_K x BLOCK_N tile products in fp32; the last, partial K step loads zeros. Rows and
columns past M or N are wrapped into range (`% M`, `% N`) for the loads and dropped by the masked store.
Programs run in grouped order so the shared operand panels stay in L2.

Precision. bfloat16 tiles go through the tensor cores with an fp32 accumulator. float32 tiles use
`input_precision="ieee"` (true fp32 products, as the reference gets from cuBLAS with TF32 off); Triton then
multiplies on the CUDA cores, so fp32 tiles use BLOCK_K = 32 to fit the shared memory.

Speed. The bench shape is 0.55 TFLOP: in bfloat16 about 1 ms on an H100 at 500-600 TFLOP/s (cuBLAS plus a
separate add ~1 ms); in float32 compute bound at the CUDA-core rate, ~15-20 ms against cuBLAS's ~11 ms at
~50 TFLOP/s.
"""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K", "IEEE"],
)
@triton.jit
def _linear_residual_kernel(
    x_ptr, w_ptr, bias_ptr, res_ptr, out_ptr,
    M, N, K,
    stride_xm, stride_xk,
    stride_wn, stride_wk,
    stride_rm, stride_rn,
    stride_om, stride_on,
    stride_bias,
    HAS_BIAS: tl.constexpr, IEEE: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # --- Which output tile is ours (grouped order for L2 reuse). ---
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    # --- x rows and weight rows (= output columns) this tile needs; B[k, n] = weight[n, k]. ---
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn

    # --- x @ weight^T in fp32 (true fp32 products for float32 inputs). ---
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(x_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(w_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        if IEEE:
            acc = tl.dot(a, b, acc, input_precision="ieee")
        else:
            acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk

    # --- Epilogue: + bias (per column) + residual tile (its own strides), one rounding, masked store. ---
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    in_bounds = (rows[:, None] < M) & (cols[None, :] < N)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + cols * stride_bias, mask=cols < N, other=0.0).to(tl.float32)
        acc = acc + bias[None, :]
    rows64 = rows[:, None].to(tl.int64)
    res = tl.load(res_ptr + rows64 * stride_rm + cols[None, :] * stride_rn, mask=in_bounds, other=0.0)
    acc = acc + res.to(tl.float32)
    tl.store(out_ptr + rows64 * stride_om + cols[None, :] * stride_on, acc.to(out_ptr.dtype.element_ty),
             mask=in_bounds)


def _n_contiguous_if_float32(b):
    """The second operand B (K x N, read at b[k, n] through its strides) as the float32 dot wants it. Triton's IEEE
    float32 dot runs on the CUDA cores, and with K the contiguous dim of B it ran at half the rate of an N-contiguous
    B (24.4 against 12.0 ms on an H200 at 4096 x 8192 x 8192, `benchmarks/gemm_operand_layout.py`); a transposing
    copy costs 0.2-0.4 ms of that. 16-bit operands keep their layout: on the tensor cores the copy costs more than
    the 10-15 % it would save."""
    if b.dtype == torch.float32 and b.stride(0) == 1 and b.shape[0] > 1 and b.stride(1) != 1:
        return b.contiguous()
    return b


def linear_residual_add(input, weight, bias, residual):
    K = input.shape[-1]
    N = weight.shape[0]
    assert weight.shape[1] == K, f"weight {tuple(weight.shape)} does not match input {tuple(input.shape)}"
    x = input.reshape(-1, K)  # a view for contiguous or evenly strided leading dims, else a copy
    weight = _n_contiguous_if_float32(weight.t()).t()  # B = weight.t(), read through weight's strides
    M = x.shape[0]
    res = residual.reshape(M, N)  # a view for 2-D residuals of any strides
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    if M > 0 and N > 0:
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        _linear_residual_kernel[grid](
            x, weight, bias if bias is not None else out, res, out,
            M, N, K,
            x.stride(0), x.stride(1),
            weight.stride(0), weight.stride(1),
            res.stride(0), res.stride(1),
            out.stride(0), out.stride(1),
            bias.stride(0) if bias is not None else 0,
            HAS_BIAS=bias is not None, IEEE=input.dtype == torch.float32,
        )
    return out.reshape(*input.shape[:-1], N)
