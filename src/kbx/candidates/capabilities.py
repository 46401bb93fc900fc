"""What a candidate may import and use: the tables behind the static anti-cheat rules, each entry with its reason.

`kbx.candidates.anticheat` walks the candidate's source and asks these tables; keeping them here lets the rules
read as rules and the policy read as policy. Every entry says why an honest Triton kernel does not need the name.
"""

from __future__ import annotations

from kbx.candidates.names import real_name


def _each(reason: str, *names: str) -> dict[str, str]:
    return dict.fromkeys(names, reason)


FORBIDDEN_MODULES: dict[str, str] = {
    "ctypes": "raw memory and foreign calls bypass every check",
    "gc": "walking the heap can find reference outputs and harness state",
    "inspect": "frame and source introspection can reach the harness",
    "subprocess": "child processes escape the sandbox",
    "socket": "no network access is needed to compute a kernel",
    "threading": "background threads can do work outside the timed call",
    "multiprocessing": "other processes can do work outside the timed call",
    "concurrent": "executors run work outside the timed call",
    "importlib": "dynamic imports hide what the candidate uses",
    "runpy": "running other files hides what runs and can load the task's reference",
    "signal": "signal handlers can interfere with the harness",
    "pickle": "unpickling runs arbitrary code",
    "marshal": "loading code objects hides what runs",
    "__main__": "the worker's main module reaches sys.modules and the harness under another name",
    "pkgutil": "resolve_name imports any module by a string, the harness included",
    "pydoc": "locate() imports any module by a string, the harness included",
    "code": "an interactive interpreter runs strings",
    "codeop": "compiling strings hides what runs",
    "zipimport": "importing from archives hides what runs",
    "copyreg": "pickling reducers run when the harness saves the outputs",
}
"""Modules with a known way to cheat, with the reason. Every module off ALLOWED_MODULES is rejected as well (rule
`import_not_allowed`); these are named so that the verdict says how the module cheats."""

ALLOWED_MODULES: tuple[str, ...] = (
    "torch", "triton", "math", "__future__", "typing", "typing_extensions", "abc", "collections", "dataclasses",
    "enum", "numbers", "functools", "itertools", "operator", "os", "sys", "time", "warnings", "random", "json",
    "pathlib",
)
"""The top-level modules a candidate may import or reach; any other is rejected. A deny-list of dangerous modules
never closes (`pkgutil`, `pydoc`, `code`, `copyreg`, `__main__` were each found after one was written).
torch, triton and math are what the suite's kernels import. The rest are what LLM-written kernels bring along and
reach neither code, frames nor the import system except through names rejected in FORBIDDEN_CALLS or as private:
annotations (`__future__`, `typing`, `typing_extensions`), config types (`abc`, `collections`, `dataclasses`,
`enum`, `numbers`), caching and config grids (`functools`, `itertools`), shape products (`operator`), and
`os`/`sys` for `os.path`, `sys.maxsize` and `sys.stdout`; `json` and `pathlib` for configs and paths (they reach
no more than the builtin `open` does). numpy is left out although LLM answers import it now and
then: wrapping any address as an array (`__array_interface__`), unchecked strides, `ctypeslib`, pickles and C
builds make it ctypes by another name, with a surface no list of its names would close. `time`, `warnings` and
`random` are harmless, and LLM answers import them for timing and test code: reading a clock, sleeping or seeding
changes no verdict (inputs are drawn in the trusted worker, and replacing a clock is `patches_module` or
`runtime.patched`), and a warning filter only changes what is printed. `contextlib` is left out: `suppress` and
`ExitStack` swallow errors, and nothing else in it is needed.

Modules are reached through attributes too: `torch.importlib`, `torch.ctypes`, `dataclasses.inspect`,
`triton.testing.subprocess`, `enum.bltns` and `os.sys` are the modules themselves: `reached_name` follows them."""

_GRAPH_REPLAY = "CUDA graph replay can skip or reorder work between timed calls"
_EXEC = "replacing the process escapes the sandbox"
_SPAWN = "child processes escape the sandbox"
_ENVIRONMENT = "the environment is not an input of the task"
_SEES_HARNESS = "trace, profile, monitoring and audit callbacks see the harness's frames and when it times"
_EVALUATES = "evaluates string annotations as code"
_COMPILES_C = "compiles and loads C modules; kernels must be Triton"
_UNPICKLES = "unpickling runs arbitrary code"
_PROCESSES = "other processes can do work outside the timed call"
_TRACE = "the launch trace is torch's profiler: starting, stopping or annotating it hides kernels from the trace"

FORBIDDEN_CALLS: dict[str, str] = {
    "os.system": "shell commands escape the sandbox",
    "os.popen": "shell commands escape the sandbox",
    **_each(_EXEC, "os.execl", "os.execle", "os.execlp", "os.execlpe", "os.execv", "os.execve", "os.execvp",
            "os.execvpe"),
    **_each(_SPAWN, "os.fork", "os.forkpty", "os.spawnl", "os.spawnle", "os.spawnlp", "os.spawnlpe", "os.spawnv",
            "os.spawnve", "os.spawnvp", "os.spawnvpe", "os.posix_spawn", "os.posix_spawnp"),
    **_each(_ENVIRONMENT, "os.environ", "os.environb", "os.getenv", "os.putenv", "os.unsetenv"),
    "os.kill": "signalling other processes can kill the harness",
    "os.killpg": "signalling other processes can kill the harness",
    "sys._getframe": "frame introspection can reach the harness",
    "sys.modules": "reaching other modules through sys.modules can find the reference",
    "sys.path": "changing the import path can reach the harness and the task's files",
    "sys.meta_path": "import hooks change what the harness imports",
    "sys.path_hooks": "import hooks change what the harness imports",
    "sys.remote_exec": "runs code in another process, the harness's included",
    **_each(_SEES_HARNESS, "sys.settrace", "sys.setprofile", "sys.monitoring", "sys.addaudithook"),
    **_each(_EVALUATES, "typing.get_type_hints", "typing.ForwardRef", "typing.evaluate_forward_ref",
            "typing_extensions.get_type_hints", "typing_extensions.ForwardRef",
            "typing_extensions.evaluate_forward_ref", "typing_extensions.get_annotations",
            "functools.singledispatch", "functools.singledispatchmethod"),
    **_each(_UNPICKLES, "torch.load", "torch.serialization"),
    **_each(_COMPILES_C, "triton.runtime.build", "triton.backends", "triton.tools"),
    "triton.knobs": "knobs choose the compiler binaries Triton runs and the hooks around every launch",
    **_each(_PROCESSES, "torch.multiprocessing", "torch.distributed", "torch.utils.data"),
    **_each(_TRACE, "torch.profiler", "torch.autograd.profiler", "torch.autograd.profiler_util",
            "torch.autograd.profiler_legacy", "torch.cuda.profiler"),
    "torch.utils.benchmark": "benchmark timers compile and run statements given as strings",
    "torch.utils.collect_env": "collect_env runs shell commands",
    "torch.cuda.Stream": "side streams hide work from the timed stream",
    "torch.cuda.stream": "side streams hide work from the timed stream",
    "torch.cuda.set_stream": "side streams hide work from the timed stream",
    **_each(_GRAPH_REPLAY, "torch.cuda.CUDAGraph", "torch.cuda.graph", "torch.cuda.graphs",
            "torch.cuda.make_graphed_callables"),
    "torch.cuda.jiterator": "jiterator compiles CUDA C++ from strings; kernels must be Triton",
    "torch.library": "registering operators can replace what the harness calls",
    "torch.utils.cpp_extension": "compiled extensions are not Triton kernels",
    "torch.ops": "calling ATen operators directly lets torch compute instead of the candidate's kernels",
    "torch.compile": "Inductor would generate the kernels instead of the candidate",
    "torch.jit": "TorchScript would compile and fuse torch operations instead of the candidate's kernels",
    "torch.fx": "FX graphs trace and rewrite torch programs; a kernel needs neither",
    "torch.export": "exported programs run torch's kernels, not the candidate's",
    "torch.overrides": "torch function modes intercept every torch call, the harness's included",
    "torch.hub": "loading code from elsewhere hides what runs",
    "torch.package": "packages unpickle and run code that is not in the candidate",
}
"""Dotted names (module attributes) whose use is rejected, with the reason. Private names of allowed modules
(`torch._C`, `torch._dynamo`, `torch._int_mm`, `sys._current_frames`, `warnings._setoption`, ...) are rejected too:
see PRIVATE_TORCH and PRIVATE_MODULE."""

PRIVATE_TORCH = "private torch internals (the dispatcher, dynamo, inductor, private ops) run torch's kernels"
"""The reason any `torch._name` (one leading underscore, any depth) is rejected."""

PRIVATE_MODULE = "private internals are no interface a kernel needs, and some reach frames or import modules"
"""The reason a private name of another allowed module (`sys._current_frames`, `warnings._setoption`,
`typing._eval_type`, `triton._C`) is rejected. `os` is exempt (`os._exit` only ends the candidate's own process);
below `triton`'s top level so are names like `tl._experimental_descriptor_load` (TMA on Hopper), which honest
kernels use."""

DYNAMIC_BUILTINS: dict[str, str] = {
    "__import__": "dynamic imports hide what the candidate uses",
    "exec": "executing strings hides what runs",
    "eval": "evaluating strings hides what runs",
    "compile": "compiling strings hides what runs",
    "globals": "rewriting module globals at run time hides what runs",
    "vars": "reading a namespace as a dict hides what runs",
    "locals": "reading a namespace as a dict hides what runs",
    "breakpoint": "debuggers do not belong in a kernel",
    "help": "help() imports modules by name",
}
"""Builtins whose use is rejected, called or not (`run = exec` would hide the call)."""

_FUNCTION_INTERNALS = "a function's globals, code and defaults reach the harness and let it be rewritten in place"
_CLASS_GRAPH = "walking the class graph reaches every loaded class, the harness's included"
_RAW_ATTRIBUTE_ACCESS = "calling attribute access directly gets past the rules on what may be read or assigned"
PICKLING_HOOK = "pickling hooks run when the harness saves the outputs"
_FRAMES = "frames and tracebacks reach the harness's locals and globals"

INTROSPECTION: dict[str, str] = {
    **_each(_FUNCTION_INTERNALS, "__globals__", "__code__", "__closure__", "__defaults__", "__kwdefaults__",
            "__builtins__"),
    **_each(_CLASS_GRAPH, "__subclasses__", "__bases__", "__base__", "__mro__"),
    "__dict__": "an object's namespace as a dict reads and rewrites past these rules",
    "__self__": "a builtin's __self__ is the builtins module",
    **_each(_RAW_ATTRIBUTE_ACCESS, "__getattribute__", "__setattr__", "__delattr__"),
    **_each("a module's loader and spec load other files, the task's included", "__loader__", "__spec__"),
    **_each(PICKLING_HOOK, "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__"),
    **_each(_FRAMES, "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "tb_frame", "tb_next",
            "__traceback__", "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "ag_code"),
}
"""Attributes whose use is rejected (read, written, named in a string or as a global), with the reason. Honest
dunders stay allowed: `__name__`, `__init__`, `__call__`, `__version__`, reading `__class__`."""

BINDABLE_DUNDERS: tuple[str, ...] = ("__all__", "__slots__", "__version__")
"""Dunder names a candidate may bind; binding any other (`__annotations__ = ...`, `__name__ = ...`) is rejected, and
so is assigning any dunder attribute (`x.__class__ = ...`, `f.__code__ = ...`)."""

REWRITES_DUNDERS = "rewriting an object's dunders changes what it is or does, the harness's objects included"

PICKLING_HOOKS: tuple[str, ...] = ("__reduce__", "__reduce_ex__", "__getstate__", "__setstate__")
"""Methods a candidate's classes may not define: the harness pickles what the candidate returns."""

TENSOR_HOOKS: tuple[str, ...] = ("__torch_function__", "__torch_dispatch__")
"""Methods that make a class intercept the torch calls made on its instances."""

TENSOR_CLASSES: tuple[str, ...] = ("torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter")
"""Classes a candidate may not subclass."""

TENSOR_SUBCLASS = "a tensor subclass can answer the harness's torch calls (comparisons, copies) as it likes"

KERNEL_NAMESPACES: tuple[str, ...] = ("triton", "math")
"""Top-level modules whose functions never run torch compute: a forbidden name there is fine (`tl.sum`, `tl.dot`,
`libdevice.erf`, `math.exp` on a Python number). A forbidden name resolved anywhere else (torch, numpy,
operator, ...) is a fallback."""

CORE_WORK = "the task's core operation must be computed by the candidate's own kernels"


RELATIVE_IMPORT = "relative import: not on the allow-list, a candidate is one file with nothing beside it"
NOT_ALLOWED = f"not on the allow-list of modules a kernel needs ({', '.join(ALLOWED_MODULES)})"


ALIAS_ROOTS = ("posixpath", "ntpath", "posix", "nt")
"""Modules an allowed module exposes under another name, allowed with it: `os.path`, and the C half of `os`
(`os._exit` is `posix._exit`; names forbidden under `os.` are judged as written too)."""


def reached_name(dotted: str) -> str:
    """`dotted` named from the module it really lies in (`torch.importlib.import_module` ->
    `importlib.import_module`), following allowed modules only: see `kbx.candidates.names.real_name`."""
    return real_name(dotted, (*ALLOWED_MODULES, *ALIAS_ROOTS))


ALLOWED_UNDER_FORBIDDEN = ("triton.tools.tensor_descriptor.TensorDescriptor",)
"""Names under a forbidden prefix that may be used (and their attributes), with the module that holds them:
`triton.tools.tensor_descriptor.TensorDescriptor` is a plain dataclass (base, shape, strides, block shape) that
Triton's tutorials pass to kernels as a host-side TMA descriptor; it compiles nothing, unlike the rest of
`triton.tools`. The module's other names (`validate_block_shape`, ...) stay forbidden with `triton.tools`."""


def _allowed_under_forbidden(dotted: str) -> bool:
    return any(dotted == name or dotted.startswith(name + ".") or dotted == name.rpartition(".")[0]
               for name in ALLOWED_UNDER_FORBIDDEN)


def forbidden_reason(dotted: str) -> str | None:
    """Why the dotted name (or a module it lies under) may not be used, or None when it may."""
    if _allowed_under_forbidden(dotted):
        return None
    for name, reason in FORBIDDEN_CALLS.items():
        if dotted == name or dotted.startswith(name + "."):
            return reason
    top, *rest = dotted.split(".")
    if top not in ALLOWED_MODULES or top == "os":
        return None  # a module off the allow-list is `import_not_allowed`'s
    judged = rest[:1] if top == "triton" else rest
    if not any(p.startswith("_") and not p.endswith("__") for p in judged):
        return None
    return PRIVATE_TORCH if top == "torch" else PRIVATE_MODULE
