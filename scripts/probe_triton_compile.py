"""Where a fresh process's Triton compilations go, launch by launch (exploratory; GPU).

    python3 scripts/probe_triton_compile.py MODE CACHE_DIR SOLUTION_FILE

Calls the softmax solution (`SOLUTION_FILE`) on 12 shapes and dtypes with `TRITON_CACHE_DIR=CACHE_DIR` and prints
each first call's seconds and the files it added to the cache (`.so`: Triton's host code, built with the C compiler).
MODE is a label; `fresh` also says whether this Triton builds per-signature launchers. Session 17 ran it with an
empty folder, then with only the `.so` entries of that folder copied into a new one, then with the full folder
(docs/performance.md).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import time

SHAPES = [((64, 1000), -1), ((64, 1001), -1), ((8, 20000), -1), ((33, 77), -1), ((4, 300, 7), 1), ((300, 5), 0)]


def main() -> None:
    mode, cache, solution = sys.argv[1:4]
    os.environ["TRITON_CACHE_DIR"] = cache
    began = time.perf_counter()
    import torch
    import triton

    print(f"[{mode}] import {time.perf_counter() - began:.3f}s triton {triton.__version__}")
    if mode == "fresh":
        source = inspect.getsource(importlib.import_module("triton.backends.nvidia.driver"))
        print("per-signature launchers:", "def make_launcher" in source)
    began = time.perf_counter()
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    print(f"[{mode}] cuda init {time.perf_counter() - began:.3f}s")
    began = time.perf_counter()
    triton.runtime.driver.active.utils  # noqa: B018 - builds or loads cuda_utils
    print(f"[{mode}] driver utils {time.perf_counter() - began:.3f}s")
    spec = importlib.util.spec_from_file_location("solution", solution)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen: set[str] = set()

    def new_files() -> list[str]:
        found = []
        for root, _, files in os.walk(cache):
            for name in files:
                if os.path.join(root, name) not in seen:
                    seen.add(os.path.join(root, name))
                    found.append(name)
        return found

    new_files()
    total = 0.0
    for shape, dim in SHAPES:
        for dtype in (torch.float32, torch.bfloat16):
            x = torch.randn(*shape, device="cuda", dtype=dtype)
            began = time.perf_counter()
            module.softmax(x, dim)
            torch.cuda.synchronize()
            first = time.perf_counter() - began
            total += first
            added = new_files()
            print(f"[{mode}] {shape} dim {dim} {dtype}: first call {first:.3f}s, new files "
                  f"{sorted({os.path.splitext(n)[1] for n in added})} {[n for n in added if n.endswith('.so')]}")
    print(f"[{mode}] sum of first calls {total:.3f}s")


if __name__ == "__main__":
    main()
