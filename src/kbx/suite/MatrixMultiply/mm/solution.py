"""2-D matrix multiply in Triton: tiled tl.dot, fp32 accumulator, grouped tile order, true fp32 for float32.

Tiling. Each program computes one BLOCK_M x BLOCK_N tile of C = A @ B. It walks K in steps of BLOCK_K: load a
BLOCK_M x BLOCK_K tile of A and a BLOCK_K x BLOCK_N tile of B, multiply them with `tl.dot` and add into an fp32
accumulator held in registers; the tile is rounded to the output dtype once, after the last step. `num_stages`
lets the compiler prefetch the next tiles into shared memory while the current ones are multiplied.

Precision. bfloat16 tiles go to the tensor cores (bf16 in, fp32 out). float32 tiles are multiplied with
`input_precision="ieee"`: Triton's default for fp32 dots is TF32 (10-bit mantissas), which this task's contract
does not allow, so the fp32 path runs exact fp32 FMAs on the CUDA cores.

Ragged edges. Rows and columns past M or N are wrapped back into range (`% M`, `% N`), so the hot loop's loads
need no M/N mask; those rows are computed and dropped by the masked store. Only the last K step can be partial:
its out-of-range elements load as 0.0 and add nothing. Strides are passed explicitly, so transposed, strided
and sliced operands are read in place without a copy.

Memory traffic and tile order. Each A element is re-read N / BLOCK_N times and each B element M / BLOCK_M times;
programs are numbered in groups of GROUP_M tile rows that sweep the columns together, so the A strip and the B
panels they share stay in L2 (50 MB on an H100) and DRAM traffic stays near one read of each operand.

Speed. The 8192 x 4096 x 8192 bench is 0.55 TFLOP. In bfloat16 this should run at about 600 TFLOP/s on an H100
(under 1 ms, close to cuBLAS); in float32 without TF32 the CUDA cores' ~50 TFLOP/s peak bounds both cuBLAS and
this kernel, which should reach about 25-35 TFLOP/s (16-22 ms).
"""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        # The GPU tries every config; the CPU interpreter runs only the first, so a small one leads (the
        # interpreter's dot costs the full tile whatever the matrix size). The large bf16 tiles exceed shared
        # memory for fp32 operands and are pruned for float32.
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        # fp32 (CUDA-core FMA) configs: smaller K steps keep the fp32 tiles within shared memory.
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],  # the autotuner adds the operands' dtypes to the key itself
)
@triton.jit
def _mm_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    PRECISION: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # --- Which output tile is ours: grouped ("swizzled") order for L2 reuse. ---
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)  # the last group may be short
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    # --- Pointers to the first K step of our A rows and B columns (wrapped: loads never leave the matrix). ---
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    # --- Main loop over K: tiles in the operands' dtype, fp32 accumulator. ---
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K  # only the last step has k_left < BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    # --- Epilogue: round once to the output dtype and store the in-range part of the tile. ---
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


def _n_contiguous_if_float32(b):
    """The second operand B (K x N, read at b[k, n] through its strides) as the float32 dot wants it. Triton's IEEE
    float32 dot runs on the CUDA cores, and with K the contiguous dim of B it ran at half the rate of an N-contiguous
    B (24.4 against 12.0 ms on an H200 at 4096 x 8192 x 8192, `benchmarks/gemm_operand_layout.py`); a transposing
    copy costs 0.2-0.4 ms of that. 16-bit operands keep their layout: on the tensor cores the copy costs more than
    the 10-15 % it would save."""
    if b.dtype == torch.float32 and b.stride(0) == 1 and b.shape[0] > 1 and b.stride(1) != 1:
        return b.contiguous()
    return b


def mm(input, mat2):
    assert input.dim() == 2 and mat2.dim() == 2, "mm takes two matrices"
    M, K = input.shape
    K2, N = mat2.shape
    assert K == K2, f"inner dimensions differ: {tuple(input.shape)} @ {tuple(mat2.shape)}"
    assert input.dtype == mat2.dtype, "mm operands must share a dtype"
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    if M == 0 or N == 0:
        return out
    if K == 0:
        return out.zero_()
    precision = "ieee" if input.dtype == torch.float32 else "tf32"  # "tf32" only matters for fp32 operands
    mat2 = _n_contiguous_if_float32(mat2)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    _mm_kernel[grid](
        input, mat2, out, M, N, K,
        *input.stride(), *mat2.stride(), *out.stride(),
        PRECISION=precision,
    )
    return out
