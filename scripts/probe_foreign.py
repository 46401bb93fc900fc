"""Exploratory: which kernels of a suite solution the launch trace finds outside every torch operator (GPU only).
    python3 scripts/probe_foreign.py TASK [WORKLOAD...]"""
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import torch

from kbx.evaluation.candidate.launch_trace import LaunchTracer, summarise
from kbx.tasks.meta import read_task
from kbx.tasks.module import import_task

folder = next(Path("src/kbx/suite").glob(f"*/{sys.argv[1]}"))
task = read_task(folder)
code = import_task(task)
spec = importlib.util.spec_from_file_location("cand", folder / "solution.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
entry = getattr(module, task.name)
scratch = Path(tempfile.mkdtemp())
tracer = LaunchTracer(scratch)
names = sys.argv[2:] or [w.name for w in task.workloads][:3]
for name in names:
    workload = task.workload(name)
    for dtype in ("float32",):
        inputs = code.make_inputs(workload, dtype, torch.Generator(device="cuda").manual_seed(1))
        inputs = {k: (v.cuda() if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()}
        torch.cuda.synchronize()
        tracer._prepare(tracer._config(), tracer._activities)
        tracer._enable(tracer._config(), tracer._activities)
        entry(**inputs)
        torch.cuda.synchronize()
        result = tracer._disable()
        result.save(str(scratch / "t.json"))
        events = json.loads((scratch / "t.json").read_text())["traceEvents"]
        launches = summarise(events, tracer.own_names, 0)
        print(name, dtype, "own", launches.own, "dispatched", launches.dispatched, "foreign", dict(launches.foreign))
        for e in events:
            a = e.get("args") or {}
            if e.get("cat") == "kernel" and e["name"][:160] in launches.foreign:
                print("   ", json.dumps(e)[:600])
