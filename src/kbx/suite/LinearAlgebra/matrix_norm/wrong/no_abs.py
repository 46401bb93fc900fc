"""Sums signed values for the induced norms (forgets |.|): column and row sums of A instead of |A|. With a
negative mean the sums differ everywhere; 'fro' (which squares) is right."""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _matrix_norm_kernel(x_ptr, out_ptr, K, S, stride_b, stride_k, stride_s,
                        FRO: tl.constexpr, TAKE_MAX: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_S: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    base = x_ptr + b * stride_b
    if TAKE_MAX:
        best = float("-inf")
    else:
        best = float("inf")
    total = tl.zeros((BLOCK_K, BLOCK_S), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_K, BLOCK_S), dtype=tl.float32)
        for s0 in range(0, S, BLOCK_S):
            ss = s0 + tl.arange(0, BLOCK_S)
            mask = (ks[:, None] < K) & (ss[None, :] < S)
            x = tl.load(base + ks[:, None] * stride_k + ss[None, :] * stride_s, mask=mask, other=0.0).to(tl.float32)
            if FRO:
                acc += x * x
            else:
                acc += x
        if FRO:
            total += acc
        else:
            sums = tl.sum(acc, axis=1)
            if TAKE_MAX:
                best = tl.maximum(best, tl.max(tl.where(ks < K, sums, float("-inf")), axis=0))
            else:
                best = tl.minimum(best, tl.min(tl.where(ks < K, sums, float("inf")), axis=0))
    if FRO:
        best = tl.sqrt(tl.sum(tl.sum(total, axis=1), axis=0))
    tl.store(out_ptr + b, best.to(out_ptr.dtype.element_ty))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False):
    rank = A.dim()
    d0, d1 = dim[0] % rank, dim[1] % rank
    batch_dims = [d for d in range(rank) if d not in (d0, d1)]
    view = A.permute(*batch_dims, d0, d1)
    M, N = view.shape[-2], view.shape[-1]
    x = view.reshape(-1, M, N)
    out = torch.empty([A.shape[d] for d in batch_dims], dtype=A.dtype, device=A.device)
    sb, sm, sn = x.stride()
    if ord in (1, -1):
        K, S, sk, ss = N, M, sn, sm
    else:
        K, S, sk, ss = M, N, sm, sn
    _matrix_norm_kernel[(x.shape[0],)](x, out, K, S, sb, sk, ss, FRO=ord == "fro",
                                       TAKE_MAX=ord in ("fro", 1, math.inf), BLOCK_K=64, BLOCK_S=64)
    if keepdim:
        kept = list(A.shape)
        kept[d0] = kept[d1] = 1
        out = out.reshape(kept)
    return out
