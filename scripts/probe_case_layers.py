"""What each layer of a correctness case costs an autotuned kernel on a GPU (exploratory, issue 19): the suite's
matmul solution over its check workloads, first call per shape, with the quick tuning, the torch-work recorder and
the launch trace switched on one by one (each combination in a fresh process sharing one warm Triton cache).

    PYTHONPATH=src python3 scripts/probe_case_layers.py [TASK]
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time

LAYERS = ("", "tuning", "recorder", "tracer", "tuning,recorder", "tuning,tracer", "tuning,recorder,tracer")


def run(task_name: str, layers: set[str]) -> None:
    import importlib.util
    from pathlib import Path

    import torch

    from kbx.tasks.module import import_task
    from kbx.tasks.registry import load_suite, select

    (task,) = select(load_suite(), [task_name])
    code = import_task(task)
    tracer = recorder = None
    if "tuning" in layers:
        from kbx.evaluation.candidate.tuning import Tuning

        Tuning()
    if "tracer" in layers:
        from kbx.evaluation.candidate.launch_trace import LaunchTracer

        tracer = LaunchTracer(Path(tempfile.mkdtemp()))
    if "recorder" in layers:
        from kbx.evaluation.candidate.torch_compute import TorchComputeRecorder

        recorder = TorchComputeRecorder()
    spec = importlib.util.spec_from_file_location("sol", task.path / "solution.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entry = getattr(module, task.name)
    total = time.perf_counter()
    firsts = []
    for workload in task.workloads_for(("smoke", "check")):
        for dtype in task.dtypes:
            inputs = code.make_inputs(workload, dtype, torch.Generator(device="cuda").manual_seed(1))
            began = time.perf_counter()
            recording = recorder.recording() if recorder else contextlib.nullcontext()
            with recording, tracer.tracing(inputs) if tracer else contextlib.nullcontext():
                entry(**inputs)
            torch.cuda.synchronize()
            firsts.append(time.perf_counter() - began)
    shown = " ".join(f"{t:.2f}" for t in firsts)
    print(f"  {','.join(sorted(layers)) or 'none':24} total {time.perf_counter() - total:6.2f} s  per shape: {shown}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--layers":
        run(sys.argv[3], set(filter(None, sys.argv[2].split(","))))
        sys.exit(0)
    name = sys.argv[1] if len(sys.argv) > 1 else "matmul"
    cache = tempfile.mkdtemp()
    env = {**os.environ, "TRITON_CACHE_DIR": cache}
    subprocess.run([sys.executable, __file__, "--layers", "", name], env=env, timeout=300)  # warms the cache
    for layers in LAYERS:
        subprocess.run([sys.executable, __file__, "--layers", layers, name], env=env, timeout=300)
