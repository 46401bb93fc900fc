"""An honest linear_log_softmax: a tl.dot GEMM writes the logits, then a three-pass log-softmax per row.

The GEMM (fp16/bf16 operands, fp32 accumulator, bias added in fp32, one rounding to the input dtype) stores the
M x N logits as `F.linear` returns them. A second kernel gives each row one program that reads its row three
times, the textbook way: the maximum, then the sum of exp(x - max) in fp32, then writes x - max - log(sum) in
float32.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _linear_kernel(x_ptr, w_ptr, b_ptr, z_ptr, M, N, K, stride_xm, stride_xk, stride_wn, stride_wk,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm.to(tl.int64)[:, None] * stride_xm + kk[None, :] * stride_xk,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rn.to(tl.int64)[None, :] * stride_wn + kk[:, None] * stride_wk,
                    mask=(rn[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc)
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    tl.store(z_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], acc.to(z_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _log_softmax_kernel(z_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    z_row = z_ptr + row * N
    o_row = out_ptr + row * N
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(z_row + cols, mask=cols < N, other=float("-inf")).to(tl.float32))
    row_max = tl.max(m, axis=0)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(z_row + cols, mask=cols < N, other=float("-inf")).to(tl.float32)
        s += tl.exp(x - row_max)
    log_sum = tl.log(tl.sum(s, axis=0))
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(z_row + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(o_row + cols, x - row_max - log_sum, mask=mask)


def linear_log_softmax(input, weight, bias):
    M, K = input.shape
    N = weight.shape[0]
    logits = torch.empty((M, N), dtype=input.dtype, device=input.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 128, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _linear_kernel[grid](input, weight, bias.contiguous(), logits, M, N, K, input.stride(0), input.stride(1),
                         weight.stride(0), weight.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    out = torch.empty((M, N), dtype=torch.float32, device=input.device)
    _log_softmax_kernel[(M,)](logits, out, N, BLOCK=min(triton.next_power_of_2(N), 2048))
    return out
