"""On a GPU (exploratory, issue 19): what the zygote's imports do to CUDA, outputs handed over as CUDA descriptors
from a confined process, and what autotuning costs in correctness cases.

    PYTHONPATH=src python3 scripts/probe_cuda_share.py [zygote] [share] [autotune]
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GIB = 1 << 30


def zygote() -> None:
    """Which import loads the driver or initialises CUDA, and whether a fork after all of them can use CUDA."""
    for env in ({}, {"PYTORCH_NVML_BASED_CUDA_CHECK": "1"}):
        code = r'''
import os, sys
from pathlib import Path
def state(step):
    import torch
    maps = Path("/proc/self/maps").read_text()
    print(f"  {step:32} initialised={torch.cuda.is_initialized()} libcuda={'libcuda.so' in maps}", flush=True)
import torch; state("import torch")
import triton; state("import triton")
import kbx.evaluation.candidate.worker as w; state("import worker")
import kbx.evaluation.candidate.audit, kbx.evaluation.candidate.guards, kbx.evaluation.candidate.interpreter
state("audit guards interpreter")
import kbx.evaluation.candidate.torch_compute, kbx.tasks.meta, kbx.tasks.module, kbx.timing.refresh
state("torch_compute tasks refresh")
w._import_what_the_session_uses(); state("session modules")
kbx.evaluation.candidate.torch_compute.import_lazy_parts(); state("lazy parts")
pid = os.fork()
if pid == 0:
    try:
        x = torch.ones(4, device="cuda") * 2
        print("  forked child: CUDA works", float(x.sum()), flush=True)
        os._exit(0)
    except Exception as exc:
        print("  forked child: CUDA fails:", type(exc).__name__, str(exc)[:200], flush=True)
        os._exit(1)
os.waitpid(pid, 0)
'''
        print("zygote imports, env", env)
        subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, timeout=300)


def _child(fd: int, job_dir: str, gib: float) -> None:
    """Confined as a candidate worker is, export a tensor of `gib` GiB and send its descriptor."""
    from kbx.evaluation.confinement.enter import ConfinementSpec, confine, split

    spec = ConfinementSpec(enabled=True)
    split(spec)
    import torch

    from kbx.evaluation import cuda_share

    confine(spec, job_dir)
    link = socket.socket(fileno=fd)
    torch.cuda.init()
    n = int(gib * GIB) // 4
    value = torch.arange(n, device="cuda", dtype=torch.float32).remainder_(1000.0)
    torch.cuda.synchronize()
    began = time.perf_counter()
    export = cuda_share.Export(value)
    made = time.perf_counter() - began
    socket.send_fds(link, [json.dumps({**export.block.to_json(), "export_s": made}).encode()], [export.fd])
    link.recv(16)  # the importer's "done"
    export.close()
    # the file path today: torch.save to the job dir
    began = time.perf_counter()
    torch.save({"outputs": [value]}, Path(job_dir) / "case.pt")
    link.send(json.dumps({"save_s": time.perf_counter() - began}).encode())
    link.recv(16)


def share(gib: float) -> None:
    import torch

    from kbx.evaluation import cuda_share

    torch.cuda.init()
    torch.zeros(1, device="cuda")
    job_dir = tempfile.mkdtemp(prefix="kbx-probe-", dir="/dev/shm")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    child = subprocess.Popen([sys.executable, __file__, "child", str(theirs.fileno()), job_dir, str(gib)],
                             pass_fds=[theirs.fileno()])
    theirs.close()
    message, fds, _, _ = socket.recv_fds(ours, 1 << 16, 1)
    raw = json.loads(message)
    block = cuda_share.SharedBlock(raw["size"], raw["nbytes"], raw["dtype"], tuple(raw["shape"]))
    began = time.perf_counter()
    got = cuda_share.import_copy(fds[0], block)
    imported = time.perf_counter() - began
    n = block.shape[0]
    same = bool(torch.equal(got, torch.arange(n, device="cuda", dtype=torch.float32).remainder_(1000.0)))
    ours.send(b"done")
    saved = json.loads(ours.recv(1 << 16))
    began = time.perf_counter()
    loaded = torch.load(Path(job_dir) / "case.pt", map_location="cuda", weights_only=True, mmap=True)["outputs"][0]
    torch.cuda.synchronize()
    load_s = time.perf_counter() - began
    ours.send(b"done")
    child.wait(timeout=120)
    print(f"share {gib} GiB (child confined: pid+mount+net namespaces, uid 65534, seccomp): equal={same} "
          f"export {raw['export_s']:.3f} s import+copy {imported:.3f} s | file: save {saved['save_s']:.3f} s "
          f"load {load_s:.3f} s equal={bool(torch.equal(loaded, got))}; child exit {child.returncode}")
    # a forged description: more bytes than the block holds
    for forged in ({"nbytes": block.size * 2}, {"dtype": "no_such"}, {"shape": (n + 1,)}):
        try:
            cuda_share.import_copy(os.dup(0), cuda_share.SharedBlock(**{**block.to_json(), "shape": block.shape,
                                                                           **forged}))
            print("  forged", forged, "ACCEPTED")
        except cuda_share.CudaShareError as exc:
            print("  forged", forged, "refused:", exc)
    try:
        cuda_share.import_copy(os.open("/dev/null", os.O_RDONLY), block)
        print("  /dev/null as a handle ACCEPTED")
    except cuda_share.CudaShareError as exc:
        print("  /dev/null as a handle refused:", exc)


def autotune() -> None:
    """The matmul solution over its check workloads: first calls with Triton's benchmarker and with a cheap one."""
    code = r'''
import sys, time, torch, triton
from kbx.tasks.registry import load_suite, select
from kbx.tasks.module import import_task
mode = sys.argv[1]
if mode == "cheap":
    import triton.testing
    real = triton.testing.do_bench
    def cheap(fn, quantiles=None, **kw):
        return real(fn, warmup=1, rep=3, quantiles=quantiles)
    triton.runtime.driver.active.get_benchmarker = lambda: cheap
(task,) = select(load_suite(), ["matmul"])
code = import_task(task)
import importlib.util
spec = importlib.util.spec_from_file_location("sol", task.path / "solution.py")
sol = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sol)
fn = getattr(sol, task.name)
total = time.perf_counter()
for w in task.workloads_for(("smoke", "check")):
    for dtype in task.dtypes:
        inputs = code.make_inputs(w, dtype, torch.Generator(device="cuda").manual_seed(1))
        began = time.perf_counter(); fn(**inputs); torch.cuda.synchronize()
        first = time.perf_counter() - began
        began = time.perf_counter(); fn(**inputs); torch.cuda.synchronize()
        again = time.perf_counter() - began
        print(f"  {mode:8} {w.name:14} {dtype:9} first {first:6.3f} s again {again:6.4f} s", flush=True)
print(f"  {mode}: total {time.perf_counter() - total:.1f} s", flush=True)
'''
    for mode in ("default", "cheap", "cheap"):
        cache = tempfile.mkdtemp() if mode == "default" or not autotune.__dict__.get("warm") else autotune.warm
        autotune.warm = cache
        subprocess.run([sys.executable, "-c", code, mode], env={**os.environ, "TRITON_CACHE_DIR": cache}, timeout=400)


if __name__ == "__main__":
    if sys.argv[1] == "child":
        _child(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
        sys.exit(0)
    for step in sys.argv[1:]:
        if step == "zygote":
            zygote()
        elif step == "share":
            share(0.25)
            share(2.0)
        elif step == "autotune":
            autotune()
