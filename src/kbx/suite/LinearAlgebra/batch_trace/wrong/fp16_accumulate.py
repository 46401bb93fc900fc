"""Accumulates the diagonal in the input dtype: fp16 rounds the running sum at every step (fp32 is unaffected),
which drifts by several ulps over the 1023-element diagonal."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _trace_kernel(x_ptr, out_ptr, D, stride_b, stride_diag):
    b = tl.program_id(0).to(tl.int64)
    acc = tl.load(x_ptr + b * stride_b)
    for i in range(1, D):
        acc += tl.load(x_ptr + b * stride_b + i * stride_diag)
    tl.store(out_ptr + b, acc)


def batch_trace(input):
    M, N = input.shape[-2], input.shape[-1]
    x = input.reshape(-1, M, N)
    out = torch.empty(input.shape[:-2], dtype=input.dtype, device=input.device)
    _trace_kernel[(x.shape[0],)](x, out, min(M, N), x.stride(0), x.stride(1) + x.stride(2))
    return out
