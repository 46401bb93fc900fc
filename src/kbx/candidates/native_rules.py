"""Static rules on a CUDA candidate's C++/CUDA sources and compiler flags (the CUDA backend's static layer).

The sources are text for a compiler, and native code can do anything its process can: these rules are a warning,
as the rules on Python are (docs/anticheat.md, "Native code"). They name what LLM-written extensions reach for when
they cheat — cuBLAS and cuDNN, torch's operators or its kernels called past the dispatcher, code loaded at run
time, threads, processes, side streams, calls back into Python — and they close the preprocessor's ways of
building a name no rule sees (token pasting, computed includes, universal character names). What lies past them
(a pointer walk to a library's symbols, say) is left to the boundaries: the confinement, and on a GPU the launch
trace, which sees every kernel that runs, whoever launched it.

Each rule applies to the sources with comments removed and, except for the `#include` rules, with the contents of
string literals blanked, so a message or a comment naming cuBLAS is no violation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from kbx.tasks.spec import normalise_op

_LIBRARY = "a library would compute what the candidate's own kernels must"
_PAST_DISPATCHER = "calls torch's kernels past its dispatcher, where no recorder sees them"
_LOADS_CODE = "loads code that was not compiled from the candidate's sources"
_OUTSIDE_CALL = "threads, processes and system calls act outside the call the harness judges"
_STREAMS = "work on another stream, in a graph or in a host callback is not what the harness times"
_PYTHON = "calling back into Python from C++ gets past the rules on the Python source"
_ENVIRONMENT = "the environment is not an input of the task"
_LOAD_TIME = "code run when the library loads acts before and outside every judged call"
_REGISTERS = "registering torch operators can replace what the harness calls"
_HIDES_NAMES = "hides which torch operations are called: qualify them (`torch::`, `at::`)"

IDENTIFIER_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, flags), reason)
    for pattern, flags, reason in (
        (r"\b(cublas|cublasLt|cudnn|cusparse|cusparseLt|cufft|cusolver|nvblas)\w*", re.IGNORECASE, _LIBRARY),
        (r"\bcurand(Create|Generate|SetPseudo|SetStream|Destroy)\w*", 0, _LIBRARY),
        (r"\b(thrust|cutlass|cute|cudnn_frontend)\s*::", 0, _LIBRARY),
        (r"\bcub\s*::\s*Device\w*", 0, _LIBRARY + " (a device-wide CUB algorithm launches kernels of its own)"),
        (r"\b(getCurrentCUDABlas\w*|getCurrentCUDASparse\w*|getCudnnHandle|getCurrentCUDASolver\w*)", 0, _LIBRARY),
        (r"\bat\s*::\s*(native|_ops|cuda\s*::\s*blas|cuda\s*::\s*tunable)\s*::", 0, _PAST_DISPATCHER),
        (r"\b(Dispatcher|findSchema\w*|callBoxed|OperatorHandle|TypedOperatorHandle)\b", 0, _PAST_DISPATCHER),
        (r"\btorch\s*::\s*(jit|autograd\s*::\s*profiler|profiler)\b", 0, _PAST_DISPATCHER),
        (r"\b(TORCH_LIBRARY\w*|Library)\b", 0, _REGISTERS),
        (r"\b(dlopen|dlmopen|dlsym|dlvsym|dladdr\w*|dlinfo|dl_iterate_phdr|_r_debug|link_map)\b", 0, _LOADS_CODE),
        (r"\b(cuModule\w*|cuLibrary\w*|cudaLibrary\w*|cuLink\w*|cuGetProcAddress\w*|cudaGetDriverEntryPoint\w*"
         r"|cudaGetFuncBySymbol|cuKernelGetFunction|nvrtc\w*|nvJitLink\w*|nvPTXCompiler\w*)\b", 0, _LOADS_CODE),
        (r"\bincbin\b", 0, _LOADS_CODE + " (it embeds a file into the binary)"),
        (r"\bstd\s*::\s*(thread|jthread|async)\b|\bpthread_\w+|\bomp_\w+", 0, _OUTSIDE_CALL),
        (r"(?<![.\w])(?<!->)(?<!at::)(?<!torch::)(fork|vfork|execl|execle|execlp|execv|execve|execvp|execvpe|fexecve"
         r"|system|popen|posix_spawnp?|syscall|ptrace|kill|tgkill|clone|clone3|prctl|unshare|setns|mprotect|mmap"
         r"|munmap|mremap|personality|seccomp|process_vm_readv|process_vm_writev)\s*\(", 0, _OUTSIDE_CALL),
        (r"\b(getenv|secure_getenv|environ|setenv|putenv)\b", 0, _ENVIRONMENT),
        (r"\b(constructor|destructor)\s*(\(\s*\d+\s*\))?\s*\)\s*\)|\binit_array\b", 0, _LOAD_TIME),
        (r"\b(cudaStreamCreate\w*|cuStreamCreate\w*|getStreamFromPool|getStreamFromExternal|cudaGraph\w*|cuGraph\w*"
         r"|cudaStreamBeginCapture\w*|cuStreamBeginCapture\w*|cudaLaunchHostFunc|cuLaunchHostFunc"
         r"|cudaStreamAddCallback|setCurrentCUDAStream|CUDAStreamGuard|CUDAMultiStreamGuard)\b", 0, _STREAMS),
        (r"\bPy[A-Z_]\w*", 0, _PYTHON),
        (r"\b(py|pybind11)\s*::\s*(exec|eval|eval_file|globals|module_?\s*::\s*import|import)\b", 0, _PYTHON),
        (r"::\s*import\s*\(|\.\s*attr\s*\(", 0, _PYTHON),
        (r"\busing\s+namespace\s+(::\s*)?(at|torch|c10)\b", 0, _HIDES_NAMES),
        (r"\bnamespace\s+\w+\s*=\s*(::\s*)?(at|torch|c10)\b", 0, _HIDES_NAMES),
    )
)
"""(pattern, reason) for names the sources may not use."""

FORBIDDEN_HEADERS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), reason)
    for pattern, reason in (
        (r"cublas|cudnn|cusparse|cufft|cusolver|nvblas|(^|/)curand\.h$|cutlass|(^|/)cute/|(^|/)thrust/"
         r"|(^|/)cub/device/", _LIBRARY),
        (r"(^|/)aten/native/|aten/cuda/cudablas|aten/cudnn/|aten/cuda/tunable/", _PAST_DISPATCHER),
        (r"nvrtc|nvjitlink|nvptxcompiler|(^|/)dlfcn\.h$|(^|/)link\.h$|(^|/)elf\.h$", _LOADS_CODE),
        (r"(^|/)(thread|future|pthread\.h|omp\.h|spawn\.h|sys/syscall\.h|sys/ptrace\.h|sys/mman\.h|sys/prctl\.h)$",
         _OUTSIDE_CALL),
        (r"(^|/)python\.h$|(^|/)pybind11/(embed|eval)\.h$", _PYTHON),
        (r"^/|(^|/)\.\.(/|$)", "a header is named by the include paths, not by a path of its own"),
    )
)
"""(pattern, reason) for headers the sources may not include."""

_PREPROCESSOR_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"##"), "token pasting builds names that no rule sees"),
    (re.compile(r"\\[uU]"), "universal character names spell names that no rule sees"),
    (re.compile(r"__has_include\w*"), "probing for headers chooses code no rule sees"),
    (re.compile(r"^[ \t]*#[ \t]*(include_next|embed|import)\b", re.MULTILINE), "only #include names a header"),
    (re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+(omp|GCC[ \t]+(plugin|poison))\b", re.MULTILINE), _OUTSIDE_CALL),
    (re.compile(r"^[ \t]*#[ \t]*(define|undef)[ \t]+__(global|device|host)__\b", re.MULTILINE),
     "redefining CUDA's function qualifiers changes which code runs where"),
)
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b[ \t]*(.*)$", re.MULTILINE)
_INCLUDE_TARGET = re.compile(r"<([^<>\n]+)>|\"([^\"\n]+)\"")
_QUALIFIED = re.compile(r"\b(?:at|torch)\s*::\s*(?:\w+\s*::\s*)*(\w+)")
_METHOD_CALL = re.compile(r"(?:\.|->)\s*(\w+)\s*(?:<[^;(){}<>]*>\s*)?\(")
_USING = re.compile(r"\busing\s+(?:::\s*)?(?:at|torch)\s*::\s*(?:\w+\s*::\s*)*(\w+)\s*;")
_KERNEL = re.compile(r"\b__global__\b")
_DEVICE_ONLY = re.compile(r"\b__(global|device)__\b")
_HOST = re.compile(r"\b__host__\b")
_DIRECTIVE = re.compile(r"^[ \t]*#", re.MULTILINE)
CORE_WORK = "the task's core operation must be computed by the candidate's own kernels"
NATIVE = "native_source"


def source_problems(text: str, forbidden: Iterable[str] = ()) -> Iterator[tuple[int, str, str]]:
    """(line in `text`, rule, why) for each rule one C++/CUDA source breaks: `native_source`, or `torch_fallback`
    for a forbidden operation. `forbidden`: the task's forbidden operations, normalised
    (`kbx.tasks.spec.normalise_op`)."""
    text = _spliced(text)
    plain, code = strip(text)
    for line, target in _includes(plain):
        if target is None:
            yield line, NATIVE, "#include of a computed name: a header must be named as <...> or \"...\""
            continue
        for pattern, reason in FORBIDDEN_HEADERS:
            if pattern.search(target.replace("\\", "/")):
                yield line, NATIVE, f"includes <{target}>: {reason}"
                break
    for pattern, reason in _PREPROCESSOR_RULES:
        for match in pattern.finditer(code):
            yield _line(code, match.start()), NATIVE, f"`{match.group(0).strip()}`: {reason}"
    for pattern, reason in IDENTIFIER_RULES:
        for match in pattern.finditer(code):
            yield _line(code, match.start()), NATIVE, f"uses `{_squeezed(match.group(0))}`: {reason}"
    yield from _torch_fallbacks(code, frozenset(forbidden))


def _torch_fallbacks(code: str, forbidden: frozenset[str]) -> Iterator[tuple[int, str, str]]:
    """A forbidden operation named through torch's C++ API: `at::relu`, `torch::nn::functional::relu`,
    `&at::relu` (bound as it is), `x.relu()`, `x->clamp_min(0)`, `using at::relu;`."""
    if not forbidden:
        return
    device = _device_bodies(code)
    for pattern, what in ((_QUALIFIED, "names"), (_METHOD_CALL, "calls the method"), (_USING, "imports")):
        for match in pattern.finditer(code):
            name = match.group(1)
            if pattern is _METHOD_CALL and _in_device_code(code, match.start(), device):
                continue
            if _op(name) in forbidden:
                shown = _squeezed(match.group(0)).rstrip("(;")
                yield _line(code, match.start()), "torch_fallback", f"{what} `{shown}`: {CORE_WORK}"


def _device_bodies(code: str) -> list[tuple[int, int]]:
    """(start, end) of the bodies of functions marked `__global__` or `__device__` and not `__host__`: code that
    runs only on the GPU, where no torch method can be called (nvcc refuses a host function called from device
    code), so a method there named like a forbidden operation is the candidate's own (a Welford struct's `var()`)."""
    bodies: list[tuple[int, int]] = []
    for match in _DEVICE_ONLY.finditer(code):
        if bodies and match.start() < bodies[-1][1]:
            continue  # inside a body already found
        brace, semicolon = code.find("{", match.end()), code.find(";", match.end())
        if brace < 0 or 0 <= semicolon < brace:
            continue  # a declaration, no body
        head = code[max(code.rfind(c, 0, match.start()) for c in ";{}") + 1 : brace]
        if _HOST.search(head):
            continue
        end = _closing(code, brace)
        if end is not None:
            bodies.append((brace, end))
    return bodies


def _closing(code: str, brace: int) -> int | None:
    """The index just past the brace that closes the one at `brace`, or None when it never closes."""
    depth = 0
    for index in range(brace, len(code)):
        depth += {"{": 1, "}": -1}.get(code[index], 0)
        if depth == 0:
            return index + 1
    return None


def _in_device_code(code: str, position: int, bodies: list[tuple[int, int]]) -> bool:
    """Whether `position` lies in a device-only body and not on a preprocessor directive (a macro defined there
    may be used in host code)."""
    if not any(start <= position < end for start, end in bodies):
        return False
    line_start = code.rfind("\n", 0, position) + 1
    return not _DIRECTIVE.match(code, line_start)


def _op(name: str) -> str:
    """A C++ operator name as forbidden names compare: `relu_out`, `relu_outf` and `relu_` are `relu`."""
    for suffix in ("_outf", "_out"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return normalise_op(name)


def has_kernel(text: str) -> bool:
    """Whether a CUDA source defines a `__global__` function (outside comments and strings)."""
    return bool(_KERNEL.search(strip(_spliced(text))[1]))


def strip(text: str) -> tuple[str, str]:
    """(`text` without comments, the same with the contents of string and character literals blanked). Newlines
    are kept, so a line number means the same in both and in `text`."""
    plain: list[str] = []
    code: list[str] = []
    i, n = 0, len(text)
    while i < n:
        end, kind = _token_end(text, i)
        piece = text[i:end]
        if kind == "comment":
            blank = " " + "\n" * piece.count("\n")
            plain.append(blank)
            code.append(blank)
        elif kind == "literal":
            plain.append(piece)
            code.append("".join(c if c == "\n" else " " for c in piece))
        else:
            plain.append(piece)
            code.append(piece)
        i = end
    return "".join(plain), "".join(code)


def _token_end(text: str, i: int) -> tuple[int, str]:
    """Where the lexical piece starting at `i` ends, and whether it is a comment, a literal or plain code (one
    character of it)."""
    two = text[i : i + 2]
    if two == "//":
        end = text.find("\n", i)
        return (len(text) if end < 0 else end), "comment"
    if two == "/*":
        end = text.find("*/", i + 2)
        return (len(text) if end < 0 else end + 2), "comment"
    if text[i] == "R" and text[i + 1 : i + 2] == '"' and not _in_word(text, i):
        match = re.match(r'R"([^()\\\s]{0,16})\(', text[i:])
        if match:
            closing = text.find(")" + match.group(1) + '"', i + match.end())
            return (len(text) if closing < 0 else closing + len(match.group(1)) + 2), "literal"
    if text[i] == '"' or (text[i] == "'" and not _in_word(text, i)):
        quote, j = text[i], i + 1
        while j < len(text) and text[j] not in (quote, "\n"):
            j += 2 if text[j] == "\\" else 1
        return min(j + 1, len(text)), "literal"
    return i + 1, "code"


def _in_word(text: str, i: int) -> bool:
    """Whether position `i` continues a word (`1'000` is a digit separator, `LR"` no raw string of ours)."""
    return i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")


def _spliced(text: str) -> str:
    """Lines joined where they end in a backslash (as the preprocessor's second phase does), with the joined
    line's newline kept at its end so later lines keep their numbers; digraph `%:` read as `#`."""
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    pending = ""
    carried = 0
    for line in lines:
        if line.endswith("\\"):
            pending += line[:-1]
            carried += 1
            continue
        out.append(pending + line + "\n" * carried)
        pending, carried = "", 0
    if pending:
        out.append(pending)
    return "\n".join(out).replace("%:", "#")


def _includes(plain: str) -> Iterator[tuple[int, str | None]]:
    """(line, header) of each #include; the header is None when it is not written as <...> or "..."."""
    for match in _INCLUDE.finditer(plain):
        target = _INCLUDE_TARGET.match(match.group(1).strip())
        name = None if target is None else (target.group(1) or target.group(2)).strip()
        yield _line(plain, match.start()), name


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)
