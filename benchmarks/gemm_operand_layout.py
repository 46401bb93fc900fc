"""How the suite's Triton GEMMs fare when the second operand is K-contiguous (a `linear` weight, a transposed
`mat2`), and whether copying it to N-contiguous first pays: the timed solutions ran at 0.45x eager in float32
and 0.76-0.87x in 16-bit on exactly those workloads, against 0.92-0.99x on N-contiguous ones (docs/suite.md).

Times `mm`'s solution (its autotuned kernel, the suite's GEMM template) on A (M, K) row-major and B (K, N) given
N-contiguous, K-contiguous, and K-contiguous but copied to N-contiguous inside the timed call, beside `torch.mm`,
with the harness's protocol (`kbx.timing.measure.time_call`: L2 flushed, CUDA events, median). GPU only.

    PYTHONPATH=src python3 benchmarks/gemm_operand_layout.py
"""

from __future__ import annotations

import importlib.util

import torch

from kbx.tasks.registry import default_suite_root
from kbx.timing.measure import CudaClock, L2Flusher, time_call

SHAPES = ((4096, 8192, 8192), (8192, 4096, 8192))
"""(M, K, N): `mm`'s bench_transposed and `linear`'s bench_3d."""


def _mm_solution():
    """A fresh copy of the solution module: its own autotuner, tuned for the layout it is timed on (the tuning key
    holds shapes and dtypes, not strides)."""
    path = default_suite_root() / "MatrixMultiply" / "mm" / "solution.py"
    spec = importlib.util.spec_from_file_location("mm_solution", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.mm


def main() -> None:
    clock, flusher = CudaClock(), L2Flusher()
    flags = torch.backends.cuda.matmul
    flags.allow_tf32 = False  # as the tasks' references: true float32
    mm_n, mm_k, mm_copied = _mm_solution(), _mm_solution(), _mm_solution()
    variants = {
        "triton, B N-contiguous": lambda a, b_n, b_k: mm_n(a, b_n),
        "triton, B K-contiguous": lambda a, b_n, b_k: mm_k(a, b_k),
        "triton, B K-contig. copied": lambda a, b_n, b_k: mm_copied(a, b_k.contiguous()),
        "torch.mm, B K-contiguous": lambda a, b_n, b_k: torch.mm(a, b_k),
    }
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'M K N':>16} {'dtype':>9} " + " ".join(f"{name:>27}" for name in variants))
    for m, k, n in SHAPES:
        for dtype in (torch.float32, torch.bfloat16):
            sets = []
            for seed in (1, 2):
                g = torch.Generator(device="cuda").manual_seed(seed)
                a = torch.randn(m, k, device="cuda", generator=g).to(dtype)
                b = torch.randn(k, n, device="cuda", generator=g).to(dtype)
                sets.append({"a": a, "b_n": b, "b_k": b.t().contiguous().t()})
            expected = torch.mm(sets[0]["a"].float(), sets[0]["b_n"].float())
            cells = []
            for fn in variants.values():
                out = fn(**sets[0]).float()
                error = ((out - expected).norm() / expected.norm()).item()
                ms = time_call(fn, sets, clock=clock, flusher=flusher, budget_s=0.5, warmup_s=0.2).summary.median
                cells.append(f"{ms:8.3f} ms (err {error:.0e})")
            print(f"{m:>5} {k:>5} {n:>5} {str(dtype)[6:]:>9} " + " ".join(f"{c:>27}" for c in cells))


if __name__ == "__main__":
    main()
