"""Merges batch and heads into one index and steps it by the head stride: (b, h) at (b * H + h) * stride_h.

The grouping is right (key/value head h // g of the same batch entry), but the batch entry is reached through the
head stride. That is right whenever the batch stride is H times the head stride: every contiguous (B, H, S, D)
tensor, and any layout with one batch entry. For (B, S, H, D) activations viewed as (B, H, S, D) (head stride D,
batch stride S * H * D), every batch entry after the first reads the heads of the first entry's next rows.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _attn_blocks(
    acc, l_i, m_i, q,
    k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
    offs_m, offs_d, start, stop, seq_k, qk_scale,
    MASKED: tl.constexpr, BLOCK_N: tl.constexpr,
):
    """Fold key/value blocks [start, stop) into the running (acc, l_i, m_i) of one query tile."""
    offs_n = tl.arange(0, BLOCK_N)
    for start_n in range(start, stop, BLOCK_N):
        cols = start_n + offs_n
        k_ptrs = k_base + cols[:, None] * stride_kn + offs_d[None, :] * stride_kd
        v_ptrs = v_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd
        if MASKED:
            in_range = cols < seq_k
            k = tl.load(k_ptrs, mask=in_range[:, None], other=0.0)
        else:
            k = tl.load(k_ptrs)
        # Scores in the log2 domain, fp32 accumulation on the tensor cores.
        s = tl.dot(q, tl.trans(k)) * qk_scale
        if MASKED:
            keep = in_range[None, :] & (cols[None, :] <= offs_m[:, None])  # top-left causal mask
            s = tl.where(keep, s, float("-inf"))
        # Online softmax: new running max, rescale factor for the old state, this block's weights.
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptrs, mask=in_range[:, None], other=0.0) if MASKED else tl.load(v_ptrs)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
    return acc, l_i, m_i


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 32}, num_warps=4, num_stages=4),
    ],
    key=["seq_q", "seq_k", "HEAD_D"],
)
@triton.jit
def _attn_fwd_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_ob, stride_oh, stride_om, stride_od,
    heads, group, seq_q, seq_k, qk_scale,
    HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    start_m = tl.program_id(0) * BLOCK_M
    bh = tl.program_id(1)
    b = bh // heads
    h = bh - b * heads
    kv = h // group  # query heads [kv * group, (kv + 1) * group) share key/value head kv
    # Batch and heads as one flat index, stepped by the head stride: query head (b, h) is head b * H + h of the
    # batch's B * H, key/value head (b, kv) is head b * Hkv + kv of its B * Hkv.
    kv_bh = b * (heads // group) + kv
    q_base = q_ptr + bh.to(tl.int64) * stride_qh
    k_base = k_ptr + kv_bh.to(tl.int64) * stride_kh
    v_base = v_ptr + kv_bh.to(tl.int64) * stride_vh
    o_base = o_ptr + bh.to(tl.int64) * stride_oh

    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_D)
    row_ok = offs_m < seq_q
    q = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd,
                mask=row_ok[:, None], other=0.0)

    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), tl.float32)

    # Keys this tile needs at all: up to the diagonal of its last row. Blocks ending at or before key start_m
    # (the diagonal of its first row) need no causal mask.
    stop = tl.minimum(seq_k, start_m + BLOCK_M)
    free = tl.minimum(seq_k, start_m + 1)
    # Whole blocks that need no mask at all, then the remaining blocks with the mask.
    n_free = (free // BLOCK_N) * BLOCK_N
    acc, l_i, m_i = _attn_blocks(
        acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
        offs_m, offs_d, 0, n_free, seq_k, qk_scale,
        MASKED=False, BLOCK_N=BLOCK_N,
    )
    acc, l_i, m_i = _attn_blocks(
        acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
        offs_m, offs_d, n_free, stop, seq_k, qk_scale,
        MASKED=True, BLOCK_N=BLOCK_N,
    )

    out = acc / l_i[:, None]
    tl.store(o_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od,
             out.to(o_ptr.dtype.element_ty), mask=row_ok[:, None])


def attention_causal(query, key, value):
    B, H, Sq, D = query.shape
    Hkv, Sk = key.shape[1], key.shape[2]
    assert H % Hkv == 0 and value.shape[1] == Hkv, "query heads must be a multiple of key/value heads"
    assert triton.next_power_of_2(D) == D and 16 <= D <= 128, "head dim must be 16, 32, 64 or 128"
    out = torch.empty((B, H, Sq, D), dtype=query.dtype, device=query.device)
    qk_scale = 1.4426950408889634 / math.sqrt(D)  # log2(e) / sqrt(D): softmax in base 2
    grid = lambda meta: (triton.cdiv(Sq, meta["BLOCK_M"]), B * H)
    _attn_fwd_kernel[grid](
        query, key, value, out,
        *query.stride(), *key.stride(), *value.stride(), *out.stride(),
        H, H // Hkv, Sq, Sk, qk_scale,
        HEAD_D=D,
    )
    return out
