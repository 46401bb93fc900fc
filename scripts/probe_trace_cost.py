"""Exploratory: what an autotuned kernel costs under the launch trace (GPU only)."""
import json
import os
import tempfile
import time
from pathlib import Path

import torch
import triton
import triton.language as tl
from torch._C._profiler import _ExperimentalConfig
from torch.autograd import (
    ProfilerActivity,
    ProfilerConfig,
    ProfilerState,
    _disable_profiler,
    _enable_profiler,
    _prepare_profiler,
)

CONFIGS = [triton.Config({"BLOCK": b}, num_warps=w) for b in (256, 512, 1024, 2048) for w in (4, 8)]


def make(key):
    @triton.autotune(configs=CONFIGS, key=["n"])
    @triton.jit
    def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = o < n
        tl.store(y_ptr + o, tl.load(x_ptr + o, mask=m) * 2, mask=m)
    return k


def cfg():
    return ProfilerConfig(ProfilerState.KINETO, False, False, False, False, False, _ExperimentalConfig())


path = os.path.join(tempfile.mkdtemp(), "t.json")
MODES = (("cpu+cuda", {ProfilerActivity.CPU, ProfilerActivity.CUDA}), ("cuda", {ProfilerActivity.CUDA}), ("none", None))
for acts_name, acts in MODES:
    for n in (1 << 12, 1 << 22):
        k = make(n)
        x = torch.randn(n, device="cuda")
        y = torch.empty_like(x)
        # compile all configs first (an import would not; but compile time is not the trace's)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        if acts:
            _prepare_profiler(cfg(), acts)
            _enable_profiler(cfg(), acts)
        k[lambda m, n=n: (triton.cdiv(n, m["BLOCK"]),)](x, y, n)
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        if acts:
            r = _disable_profiler()
            t2 = time.perf_counter()
            r.save(path)
            t3 = time.perf_counter()
            ev = json.loads(Path(path).read_text())["traceEvents"]
            t4 = time.perf_counter()
            evs = r.events()
            t5 = time.perf_counter()
            size_mb = os.path.getsize(path) / 1e6
            print(f"{acts_name:9} n={n:8}: call {t1-t0:6.2f}s disable {t2-t1:6.2f}s save {t3-t2:6.2f}s "
                  f"json {t4-t3:6.2f}s events() {t5-t4:6.2f}s: {len(ev)} json events, {size_mb:.1f} MB")
        else:
            print(f"{acts_name:9} n={n:8}: call {t1-t0:6.2f}s")
