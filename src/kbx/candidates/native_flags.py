"""The compiler flags a CUDA candidate may pass to `load_inline`: an allow-list (the CUDA backend's static layer).

torch writes `extra_cflags` and `extra_cuda_cflags` into a ninja file whose commands run through the shell, so a
flag is also a piece of a shell command: every token must match the allow-list whole, which admits no shell
metacharacter. What is allowed is what tunes code generation — optimisation levels, target architectures, fast
math, register limits, macro definitions, warnings, C++ standards. Nothing may link a library (`-l`, `-L`,
`-Xlinker`, `-Wl,`), add include directories or files, pick another compiler or ask for relocatable device code
(which links device libraries and enables launches from the device): the extension links only against torch and
the CUDA runtime, as `load_inline` links it. `extra_ldflags` must be empty (KernelBench's `[""]` is).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_HOST = (
    r"-O[0-3s]?|-Ofast|-ffast-math|-funroll-loops|-fno-strict-aliasing|-fPIC|-fvisibility=hidden|-march=native"
    r"|-fno-math-errno|-fno-trapping-math|-fno-gnu-unique|-ffp-contract=(fast|on|off)"
    r"|-mtune=native|-mavx2|-mfma|-std=(c|gnu)\+\+(14|17|20|2a)|-D[A-Za-z_]\w*(=[\w.+-]*)?|-U[A-Za-z_]\w*|-w"
    r"|-W(?![lap](,|$))[a-z][a-z0-9-]*(=[\w-]+)?|-g[0-3]?|-pedantic"
)
_ARCH = r"(sm|compute)_\d{2,3}[af]?"
_PTXAS = (
    r"-v|--verbose|-O[0-3]|--warn-on-spills|-warn-spills|-dlcm=c[ag]|-dscm=(cg|cs|wt)"
    r"|--allow-expensive-optimizations=(true|false)|--?maxrregcount=\d+"
)
_CUDA = (
    r"-O[0-3]|-std=c\+\+(17|20)|-D[A-Za-z_]\w*(=[\w.+-]*)?|-U[A-Za-z_]\w*|-w|-lineinfo|--generate-line-info"
    r"|--?use_fast_math|--?expt-relaxed-constexpr|--?expt-extended-lambda|--?extended-lambda|--?restrict"
    r"|--resource-usage|-res-usage|--?(ftz|prec-div|prec-sqrt|fmad)=(true|false)|--?maxrregcount=\d+"
    rf"|(-arch|--gpu-architecture)=({_ARCH}|all|all-major)"
    rf"|(-gencode|--generate-code)=arch=compute_\d{{2,3}}[af]?,code={_ARCH}"
    rf"|(-Xptxas|--ptxas-options)=({_PTXAS})(,({_PTXAS}))*"
    rf"|(-Xcompiler|--compiler-options)=({_HOST})(,({_HOST}))*"
    r"|--?Wno-deprecated-gpu-targets|--?Wno-deprecated-declarations|-Werror=[\w-]+|--?diag[-_]suppress=\d+(,\d+)*"
    r"|(-Xcudafe|--cudafe-options)=--?diag[-_]suppress=\d+(,\d+)*|(--?threads|-t)=\d+|--extra-device-vectorization"
)
ALLOWED = {
    "extra_cflags": re.compile(_HOST),
    "extra_cuda_cflags": re.compile(_CUDA),
    "extra_ldflags": re.compile(r"(?!)"),
}
"""Per argument of `load_inline`, the pattern every token of its flags must match whole."""

PAIRED = frozenset({
    "-Xcompiler", "--compiler-options", "-Xptxas", "--ptxas-options", "-gencode", "--generate-code", "-arch",
    "--gpu-architecture", "--maxrregcount", "-maxrregcount", "-Xcudafe", "--cudafe-options", "--threads", "-t",
})
"""Flags whose value may come as the next token (`-Xcompiler -O3`); they are judged as `flag=value`."""

_KNOWN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), reason)
    for pattern, reason in (
        (r"-l|-L|--library", "links a library: the extension links only against torch and the CUDA runtime"),
        (r"-Xlinker|--linker-options|-Wl,|-shared|-static", "passes options to the linker"),
        (r"-I|-isystem|-idirafter|-iquote|-include|--include-path|--pre-include|-imacros|@",
         "adds headers or files from elsewhere: only torch's and the CUDA toolkit's headers are included"),
        (r"-ccbin|--compiler-bindir|-B|-fplugin|-specs|--dryrun|--run|-o|-x|--keep|-save-temps",
         "changes which programs run or where output goes"),
        (r"-rdc|-dc|--relocatable-device-code|-dlink|--device-link|-lcudadevrt",
         "relocatable device code links device libraries and lets kernels launch kernels"),
        (r"-fopenmp|-pthread|-fopenacc", "threads act outside the call the harness judges"),
    )
)
_UNLISTED = ("is not on the allow-list of compiler flags (optimisation, architecture, fast math, register limits, "
             "macros, warnings, C++ standard)")


def flag_problems(argument: str, flags: Iterable[str]) -> Iterator[str]:
    """Why each token of one `load_inline` flag argument (`extra_cflags`, `extra_cuda_cflags`, `extra_ldflags`) is
    refused; nothing when all are allowed."""
    pattern = ALLOWED[argument]
    for token in _tokens(flags):
        if not pattern.fullmatch(token):
            reason = next((why for known, why in _KNOWN if known.match(token)), _UNLISTED)
            if argument == "extra_ldflags":
                reason = "no linker flags: the extension links only against torch and the CUDA runtime"
            yield f"{argument}: `{token[:80]}` {reason}"


def _tokens(flags: Iterable[str]) -> Iterator[str]:
    """The flags as the shell splits them, with a paired flag joined to its value (`-Xcompiler=-O3`)."""
    words = [word for flag in flags for word in flag.split()]
    i = 0
    while i < len(words):
        word = words[i]
        if word in PAIRED and i + 1 < len(words):
            yield f"{word}={words[i + 1]}"
            i += 2
            continue
        yield word
        i += 1
