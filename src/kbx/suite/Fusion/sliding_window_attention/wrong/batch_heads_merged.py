"""Merges batch and heads into one index and steps it by the head stride: (b, h) at (b * H + h) * stride_h.

Right whenever the batch stride is H times the head stride: every contiguous (B, H, S, D) tensor, and any layout
with one batch entry. For (B, S, H, D) activations viewed as (B, H, S, D) (head stride D, batch stride S * H * D),
every batch entry after the first reads the heads of the first entry's next rows instead of its own.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

EMPTY_MAX = tl.constexpr(-1.0e30)  # finite start of the running max (see "Empty rows" above)


@triton.jit
def _band_blocks(
    acc, l_i, m_i, q,
    k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
    offs_m, offs_d, start, stop, seq, window, qk_scale,
    MASKED: tl.constexpr, BLOCK_N: tl.constexpr,
):
    """Fold key/value blocks [start, stop) into the running (acc, l_i, m_i) of one query tile."""
    offs_n = tl.arange(0, BLOCK_N)
    for start_n in range(start, stop, BLOCK_N):
        cols = start_n + offs_n
        k_ptrs = k_base + cols[:, None] * stride_kn + offs_d[None, :] * stride_kd
        v_ptrs = v_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd
        if MASKED:
            in_range = cols < seq
            k = tl.load(k_ptrs, mask=in_range[:, None], other=0.0)
        else:
            k = tl.load(k_ptrs)
        # Scores in the log2 domain, fp32 accumulation on the tensor cores.
        s = tl.dot(q, tl.trans(k)) * qk_scale
        if MASKED:
            # The band: causal (j <= i) and within the window (j > i - window).
            keep = (cols[None, :] <= offs_m[:, None]) & (cols[None, :] > offs_m[:, None] - window)
            s = tl.where(keep & in_range[None, :], s, float("-inf"))
        # Online softmax update (m_i is finite from the start, so a fully masked row stays NaN-free).
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
    key=["seq", "window", "HEAD_D"],
)
@triton.jit
def _swa_fwd_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_ob, stride_oh, stride_om, stride_od,
    heads, seq, window, qk_scale,
    HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    m0 = tl.program_id(0) * BLOCK_M
    bh = tl.program_id(1)
    # Batch and heads as one flat index, stepped by the head stride: (b, h) is head b * H + h of the B * H.
    q_base = q_ptr + bh.to(tl.int64) * stride_qh
    k_base = k_ptr + bh.to(tl.int64) * stride_kh
    v_base = v_ptr + bh.to(tl.int64) * stride_vh
    o_base = o_ptr + bh.to(tl.int64) * stride_oh

    offs_m = m0 + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_D)
    row_ok = offs_m < seq
    q = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd,
                mask=row_ok[:, None], other=0.0)

    m_i = tl.full((BLOCK_M,), EMPTY_MAX, tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), tl.float32)

    # Keys the tile needs: [m0 - window + 1, m0 + BLOCK_M - 1], walked from a block boundary.
    lo = (tl.maximum(m0 - window + 1, 0) // BLOCK_N) * BLOCK_N
    hi = tl.minimum(seq, m0 + BLOCK_M)
    # Blocks from `inner_lo` on are within the window of the tile's last row (hence of every row); blocks
    # ending at or before key m0 are causal for its first row (hence for every row).
    inner_lo = tl.cdiv(tl.maximum(m0 + BLOCK_M - window, 0), BLOCK_N) * BLOCK_N
    inner_hi = ((m0 + 1) // BLOCK_N) * BLOCK_N
    far_end = tl.minimum(tl.maximum(inner_lo, lo), hi)
    diag_start = tl.maximum(inner_hi, far_end)
    # Blocks crossing the window's far edge, blocks inside the band, blocks crossing the diagonal.
    acc, l_i, m_i = _band_blocks(
        acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
        offs_m, offs_d, lo, far_end, seq, window, qk_scale, MASKED=True, BLOCK_N=BLOCK_N,
    )
    acc, l_i, m_i = _band_blocks(
        acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
        offs_m, offs_d, far_end, diag_start, seq, window, qk_scale, MASKED=False, BLOCK_N=BLOCK_N,
    )
    acc, l_i, m_i = _band_blocks(
        acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
        offs_m, offs_d, diag_start, hi, seq, window, qk_scale, MASKED=True, BLOCK_N=BLOCK_N,
    )

    # Rows past the sequence end may have seen nothing (l = 0); they are not stored.
    out = acc / tl.where(row_ok, l_i, 1.0)[:, None]
    tl.store(o_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od,
             out.to(o_ptr.dtype.element_ty), mask=row_ok[:, None])


def sliding_window_attention(query, key, value, window, scale=None):
    B, H, S, D = query.shape
    assert key.shape == query.shape and value.shape == query.shape, "self-attention: q, k, v share one shape"
    assert triton.next_power_of_2(D) == D and 16 <= D <= 128, "head dim must be 16, 32, 64 or 128"
    assert window >= 1, "the window must include the query's own position"
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    out = torch.empty((B, H, S, D), dtype=query.dtype, device=query.device)
    window = min(int(window), S)  # a window past the sequence is plain causal attention
    qk_scale = float(scale) * 1.4426950408889634  # softmax in base 2: fold log2(e) into the scale
    grid = lambda meta: (triton.cdiv(S, meta["BLOCK_M"]), B * H)
    _swa_fwd_kernel[grid](
        query, key, value, out,
        *query.stride(), *key.stride(), *value.stride(), *out.stride(),
        H, S, window, qk_scale,
        HEAD_D=D,
    )
    return out
