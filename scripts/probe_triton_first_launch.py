"""What the first launch of an already compiled kernel costs in a fresh process once Triton's hash of itself is
computed: a profile of the call (exploratory; GPU).

    python3 scripts/probe_triton_first_launch.py CACHE_DIR SOLUTION_FILE   (CACHE_DIR: filled by probe_triton_compile)
"""

from __future__ import annotations

import cProfile
import importlib.util
import os
import pstats
import sys
import time


def main() -> None:
    cache, solution = sys.argv[1:3]
    os.environ["TRITON_CACHE_DIR"] = cache
    import torch
    from triton.runtime.cache import triton_key

    began = time.perf_counter()
    triton_key()
    print(f"triton_key {time.perf_counter() - began:.3f}s")
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    spec = importlib.util.spec_from_file_location("solution", solution)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = torch.randn(64, 1000, device="cuda")
    profile = cProfile.Profile()
    began = time.perf_counter()
    profile.enable()
    module.softmax(x, -1)
    torch.cuda.synchronize()
    profile.disable()
    print(f"first call {time.perf_counter() - began:.3f}s")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
