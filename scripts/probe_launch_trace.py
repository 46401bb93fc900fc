"""Exploratory: what the Kineto/CUPTI trace shows for kernels, copies and launches (GPU only)."""
import time

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


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    x = tl.load(x_ptr + o, mask=m)
    tl.store(y_ptr + o, tl.where(x < 0, 0, x), mask=m)


def config():
    return ProfilerConfig(ProfilerState.KINETO, False, False, False, False, False, _ExperimentalConfig())


ACT = {ProfilerActivity.CUDA}


def trace(label, fn):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    _prepare_profiler(config(), ACT)
    _enable_profiler(config(), ACT)
    t1 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    result = _disable_profiler()
    t3 = time.perf_counter()
    events = result.events()
    print(f"== {label}: enable {1e3*(t1-t0):.2f} ms, disable {1e3*(t3-t2):.2f} ms, {len(events)} events")
    for e in events[:40]:
        meta = e.metadata_json()
        kind = getattr(e, "activity_type", lambda: "-")()
        print(f"  {str(e.device_type()):18} {kind:14} corr={e.correlation_id():6} "
              f"dur={e.duration_ns()/1e3:9.1f}us {e.name()[:90]!r} {meta[:300]}")


x = torch.randn(1 << 20, device="cuda")
y = torch.empty_like(x)
a = torch.randn(1024, 1024, device="cuda")
ab = a.bfloat16()
relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
torch.cuda.synchronize()

trace("warm-up (first CUPTI init)", lambda: x + 1)
trace("triton relu", lambda: relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024))
trace("torch add", lambda: x + x)
trace("torch matmul fp32", lambda: a @ a)
trace("torch matmul bf16", lambda: ab @ ab)
trace("x.cpu()", lambda: x.cpu())
trace("x.tolist()", lambda: x[:100000].tolist())
trace("torch.tensor(list) to cuda", lambda: torch.tensor(list(range(100000)), device="cuda"))
trace("empty/zeros/contiguous", lambda: (torch.zeros(1 << 20, device="cuda"), a.t().contiguous()))
trace("item", lambda: x.sum().item())
pin = torch.empty(1 << 20, pin_memory=True)
trace("copy to pinned non_blocking", lambda: pin.copy_(x, non_blocking=True))

static_in = a.clone()
g = torch.cuda.CUDAGraph()
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    static_out = static_in @ static_in
torch.cuda.current_stream().wait_stream(s)
with torch.cuda.graph(g):
    static_out = static_in @ static_in
trace("graph replay of matmul", lambda: g.replay())

# cost of enable/disable cycles
t = time.perf_counter()
for _ in range(50):
    _prepare_profiler(config(), ACT)
    _enable_profiler(config(), ACT)
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    torch.cuda.synchronize()
    _disable_profiler().events()
print(f"cycle cost: {1e3*(time.perf_counter()-t)/50:.2f} ms per enable+launch+disable+events")
t = time.perf_counter()
for _ in range(50):
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    torch.cuda.synchronize()
print(f"bare launch+sync: {1e3*(time.perf_counter()-t)/50:.3f} ms")
# launch overhead while enabled
_prepare_profiler(config(), ACT)
_enable_profiler(config(), ACT)
t = time.perf_counter()
for _ in range(2000):
    relu_kernel[(1,)](x, y, 16, BLOCK=1024)
torch.cuda.synchronize()
traced = (time.perf_counter() - t) / 2000
n = len(_disable_profiler().events())
t = time.perf_counter()
for _ in range(2000):
    relu_kernel[(1,)](x, y, 16, BLOCK=1024)
torch.cuda.synchronize()
bare = (time.perf_counter() - t) / 2000
print(f"per launch: traced {traced*1e6:.1f} us, bare {bare*1e6:.1f} us, events {n}")
print(torch.__version__, triton.__version__)
