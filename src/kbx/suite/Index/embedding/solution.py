"""embedding in Triton: a tiled row gather from the weight table.

The ids are flattened (a copy only when the id tensor is not contiguous: it is tiny next to the output) into
n_tokens rows; output row t is weight row ids[t], embedding_dim elements long. Each program copies a
BLOCK_T x BLOCK_D tile: BLOCK_T tokens (each loads its id once) by BLOCK_D consecutive columns. BLOCK_D covers
rows up to 1024 elements wide (a second grid axis walks wider rows) and BLOCK_T grows as BLOCK_D shrinks so every
program moves about 4096 elements: a 4096-wide vocabulary row is read as 4 KiB-16 KiB contiguous runs, and a
128-wide recommender row as 32 rows of 512 bytes per program. The weight's two strides are passed in, so a
transposed (tied) weight is read in place, though then each row is a strided walk. `padding_idx` does not change
the forward values, so the kernel ignores it beyond checking it is a valid row. Offsets are int64: the bench
table has 2^29 elements and the bench output 2^28-2^30.

Memory traffic: every output element is written once and read once from the table (repeated ids hit L2): the
fp32 vocabulary bench moves about 2 x 2 GiB (~1.4 ms at ~3 TB/s, half that in bf16); the recommender bench
reads 8M random 512-byte rows and writes 4 GiB (~3 ms).
"""

import torch
import triton
import triton.language as tl


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
    src = row[:, None] * sw0 + cols.to(tl.int64)[None, :] * sw1
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
