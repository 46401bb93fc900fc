"""Addresses the weight as a contiguous (num_embeddings, embedding_dim) array: row * embedding_dim + column.

Right for a freshly allocated table, wrong for a view: the tied (transposed) weight is stored column-major,
so consecutive elements of a row are num_embeddings apart, and the kernel copies pieces of other rows.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _embedding_kernel(
    ids_ptr, w_ptr, out_ptr, n_tokens, D, sw0, sw1,
    BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr,
):
    tok = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    tok_mask = tok < n_tokens
    # One id per token; masked tokens point at row 0, which always exists.
    row = tl.load(ids_ptr + tok, mask=tok_mask, other=0)
    mask = tok_mask[:, None] & (cols < D)[None, :]
    src = row[:, None] * D + cols.to(tl.int64)[None, :]
    vals = tl.load(w_ptr + src, mask=mask)
    dst = tok.to(tl.int64)[:, None] * D + cols[None, :]
    tl.store(out_ptr + dst, vals, mask=mask)


def embedding(input, weight, padding_idx=None):
    num, D = weight.shape
    if padding_idx is not None:
        assert -num <= padding_idx < num, "padding_idx must be within num_embeddings"
    ids = input.reshape(-1)
    if not ids.is_contiguous():
        ids = ids.contiguous()
    n_tokens = ids.numel()
    out = torch.empty((*input.shape, D), dtype=weight.dtype, device=weight.device)
    if out.numel() == 0:
        return out
    assert n_tokens < 2**31, "more than 2^31 ids"
    BLOCK_D = min(triton.next_power_of_2(D), 1024)
    BLOCK_T = max(1, 4096 // BLOCK_D)
    grid = (triton.cdiv(n_tokens, BLOCK_T), triton.cdiv(D, BLOCK_D))
    _embedding_kernel[grid](
        ids, weight, out, n_tokens, D, weight.stride(0), weight.stride(1),
        BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D, num_warps=8,
    )
    return out
