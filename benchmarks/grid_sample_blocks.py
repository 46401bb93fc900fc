"""Block sizes of the `grid_sample` solution's kernel on its two bench workloads, against eager PyTorch: the timed
solution ran at 0.38-0.56x eager in float32 with BLOCK_P=256, BLOCK_C=8, 4 warps (docs/suite.md). GPU only;
`triton.testing.do_bench` medians (an exploration: the harness times whatever config this picks).

    PYTHONPATH=src python3 benchmarks/grid_sample_blocks.py
"""

from __future__ import annotations

import importlib.util
import itertools

import torch
import torch.nn.functional as F
import triton
from triton.testing import do_bench

from kbx.tasks.registry import default_suite_root

BENCH = {  # (n, c, (h, w), (ho, wo), padding, align_corners), as the task's bench workloads
    "flow_warp": (32, 128, (256, 256), (256, 256), "zeros", False),
    "upsample_border": (16, 256, (128, 128), (256, 256), "border", True),
}


def _solution():
    path = default_suite_root() / "SpatialOps" / "grid_sample" / "solution.py"
    spec = importlib.util.spec_from_file_location("grid_sample_solution", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sweep(kernel, name, params, dtype) -> None:
    n, c, (h, w), (ho, wo), padding, align = params
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(n, c, h, w, device="cuda", generator=g).to(dtype)
    grid = (torch.rand(n, ho, wo, 2, device="cuda", generator=g) * 2 - 1).to(dtype)
    expected = F.grid_sample(x.float(), grid.float(), padding_mode=padding, align_corners=align)
    eager_ms = do_bench(
        lambda: F.grid_sample(x.float(), grid.float(), padding_mode=padding, align_corners=align).to(dtype)
    )
    out = torch.empty((n, c, ho, wo), device="cuda", dtype=dtype)
    results = []
    for block_p, block_c, warps in itertools.product((64, 128, 256, 512), (1, 2, 4, 8, 16), (2, 4, 8)):
        if block_p * block_c > 8192:
            continue

        def run(block_p=block_p, block_c=block_c, warps=warps):
            kernel[(triton.cdiv(ho * wo, block_p), n)](
                x, grid, out, c, h, w, wo, ho * wo, *x.stride(), *grid.stride(),
                ALIGN_CORNERS=align, BORDER=padding == "border", BLOCK_C=block_c, BLOCK_P=block_p,
                num_warps=warps)

        out.zero_()
        run()
        assert torch.allclose(out.float(), expected, atol=2e-2, rtol=2e-2)
        results.append((do_bench(run), block_p, block_c, warps))
    results.sort()
    now = next(r for r in results if r[1:] == (256, 8, 4))
    best = ", ".join(f"{ms:.3f} ms P{p} C{cb} w{wp}" for ms, p, cb, wp in results[:4])
    print(f"{name:16} {str(dtype)[6:]:8} eager {eager_ms:.3f} ms; now {now[0]:.3f} ms; best {best}", flush=True)


def main() -> None:
    kernel = _solution()._grid_sample_kernel
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    for (name, params), dtype in itertools.product(BENCH.items(), (torch.float32, torch.float16)):
        _sweep(kernel, name, params, dtype)


if __name__ == "__main__":
    main()
