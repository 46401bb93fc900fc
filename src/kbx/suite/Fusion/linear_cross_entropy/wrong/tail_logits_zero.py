"""Leaves the vocabulary columns past V in the last tile at logit 0 instead of -inf.

Each padded column adds exp(0 - max) to the softmax's denominator. With confident logits over a vocabulary much
wider than the padding this moves the mean loss by a few thousandths; with flat logits and a vocabulary just past
a tile boundary (V = 129) it adds nearly as much as the real columns.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

LOG2E = tl.constexpr(1.4426950408889634)  # jit code may only read constexpr globals


@triton.jit
def _partials_kernel(
    x_ptr, w_ptr, target_ptr, m_ptr, l_ptr, zt_ptr,
    M, K, V, tiles_per_split, n_splits,
    stride_xm, stride_xk, stride_wv, stride_wk,
    BLOCK_M: tl.constexpr, BLOCK_V: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    split = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rows_in = rows % M  # wrapped into range for the loads; the stores below are masked
    offs_k = tl.arange(0, BLOCK_K)
    target = tl.load(target_ptr + rows_in)

    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    zt = tl.zeros((BLOCK_M,), tl.float32)
    first = split * tiles_per_split
    last = tl.minimum(first + tiles_per_split, tl.cdiv(V, BLOCK_V))
    for tile in range(first, last):
        cols = tile * BLOCK_V + tl.arange(0, BLOCK_V)
        # --- One BLOCK_M x BLOCK_V tile of logits, fp32 accumulation. ---
        x_ptrs = x_ptr + rows_in[:, None] * stride_xm + offs_k[None, :] * stride_xk
        w_ptrs = w_ptr + offs_k[:, None] * stride_wk + (cols % V)[None, :].to(tl.int64) * stride_wv
        acc = tl.zeros((BLOCK_M, BLOCK_V), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - k * BLOCK_K
            a = tl.load(x_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
            b = tl.load(w_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
            acc = tl.dot(a, b, acc)
            x_ptrs += BLOCK_K * stride_xk
            w_ptrs += BLOCK_K * stride_wk
        logits = acc  # BUG: vocabulary columns past V keep logit 0 (their weights load as 0)
        # --- Fold the tile into the online logsumexp and pick out the target logit. ---
        m_new = tl.maximum(m_i, tl.max(logits, 1))
        l_i = l_i * tl.exp2((m_i - m_new) * LOG2E) + tl.sum(tl.exp2((logits - m_new[:, None]) * LOG2E), 1)
        m_i = m_new
        zt += tl.sum(tl.where(cols[None, :] == target[:, None], logits, 0.0), 1)

    keep = rows < M
    out = rows * n_splits + split
    tl.store(m_ptr + out, m_i, mask=keep)
    tl.store(l_ptr + out, l_i, mask=keep)
    tl.store(zt_ptr + out, zt, mask=keep)


@triton.jit
def _combine_kernel(m_ptr, l_ptr, zt_ptr, out_ptr, M, n_splits,
                    BLOCK_ROWS: tl.constexpr, BLOCK_S: tl.constexpr):
    offs_s = tl.arange(0, BLOCK_S)
    total = tl.zeros((BLOCK_ROWS,), tl.float32)
    for start in range(0, M, BLOCK_ROWS):
        rows = start + tl.arange(0, BLOCK_ROWS)
        idx = rows[:, None] * n_splits + offs_s[None, :]
        ok = (rows[:, None] < M) & (offs_s[None, :] < n_splits)
        m_s = tl.load(m_ptr + idx, mask=ok, other=float("-inf"))
        l_s = tl.load(l_ptr + idx, mask=ok, other=0.0)
        zt = tl.sum(tl.load(zt_ptr + idx, mask=ok, other=0.0), 1)
        m = tl.max(m_s, 1)
        m = tl.where(rows < M, m, 0.0)  # padding rows: keep them finite, they are dropped below
        l = tl.sum(l_s * tl.exp2((m_s - m[:, None]) * LOG2E), 1)
        l = tl.where(rows < M, l, 1.0)
        loss = m + tl.log(l) - zt
        total += tl.where(rows < M, loss, 0.0)
    tl.store(out_ptr, (tl.sum(total, 0) / M).to(out_ptr.dtype.element_ty))


def linear_cross_entropy(input, weight, target):
    M, K = input.shape
    V = weight.shape[0]
    assert weight.shape[1] == K and target.shape == (M,), "input (M, K), weight (V, K), target (M,)"
    BLOCK_M, BLOCK_V, BLOCK_K = 128, 128, 64
    m_blocks = triton.cdiv(M, BLOCK_M)
    n_tiles = triton.cdiv(V, BLOCK_V)
    # Enough (row block, vocabulary range) programs to fill the GPU a few times over; no empty ranges.
    tiles_per_split = triton.cdiv(n_tiles, min(n_tiles, triton.cdiv(512, m_blocks)))
    n_splits = triton.cdiv(n_tiles, tiles_per_split)
    m_part = torch.empty((M, n_splits), device=input.device, dtype=torch.float32)
    l_part = torch.empty_like(m_part)
    zt_part = torch.empty_like(m_part)
    _partials_kernel[(m_blocks, n_splits)](
        input, weight, target, m_part, l_part, zt_part,
        M, K, V, tiles_per_split, n_splits,
        input.stride(0), input.stride(1), weight.stride(0), weight.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_V=BLOCK_V, BLOCK_K=BLOCK_K, num_warps=8, num_stages=3,
    )
    out = torch.empty((), device=input.device, dtype=input.dtype)
    _combine_kernel[(1,)](m_part, l_part, zt_part, out, M, n_splits,
                          BLOCK_ROWS=64, BLOCK_S=max(2, triton.next_power_of_2(n_splits)))
    return out
