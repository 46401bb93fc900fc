"""Turn user sources into candidates: `.py` files, directories of them, and JSONL of replies (DESIGN §9).

A `.py` file is matched to a task by `--tasks`, else by its file name (`gelu.py`, `gelu_v2.py`; for a KernelBench
problem, `level1/19_ReLU.py` or a `19_ReLU.py` no other level shares), else by the task-named function it defines,
else by the folders it sits in (`gelu/wrong/x.py`, `level1/19_ReLU/x.py`). A JSONL line is
`{"task": ..., "code": ...}` or `{"task": ..., "response": ...}` with a raw LLM reply. Input that cannot become a
candidate (an unknown task, a line that is not JSON) is reported as a one-line problem and skipped; a reply with no
code still becomes a candidate, which the static stage rejects with a clear status.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from kbx import syntax
from kbx.candidates.extract import extract_code
from kbx.candidates.source import Candidate
from kbx.errors import KbxError


@dataclass
class Ingested:
    """Candidates read from sources, and the inputs that could not become candidates."""

    candidates: list[Candidate] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """One line per skipped input, naming where it came from and why."""


def ingest(
    sources: Sequence[str | Path], task_names: Sequence[str] | Mapping[str, str], only: Sequence[str] | None = None
) -> Ingested:
    """Read candidates from files, directories and JSONL files.

    Args:
        sources: paths given by the user.
        task_names: every task of the suite, or a mapping from each to what its candidates define
            (`Task.entry_point`: the task's name, or `ModelNew` for a KernelBench problem).
        only: restrict to these tasks (`--tasks`); a single `.py` file is evaluated against each of them.
    """
    entries = dict(task_names) if isinstance(task_names, Mapping) else {name: name for name in task_names}
    known = set(entries)
    result = Ingested()
    for source in sources:
        path = Path(source)
        if not path.exists():
            raise KbxError(f"{path}: no such file or directory")
        files = sorted(p for p in path.rglob("*") if p.suffix in {".py", ".jsonl"}) if path.is_dir() else [path]
        for file in files:
            if file.suffix == ".jsonl":
                _from_jsonl(file, entries, only, result)
            elif file.suffix == ".py":
                _from_python(file, known, only, result)
            else:
                raise KbxError(f"{file}: expected a .py file, a directory or a .jsonl file")
    return result


def _from_python(path: Path, known: set[str], only: Sequence[str] | None, out: Ingested) -> None:
    code = path.read_text(errors="replace")
    if only and len(only) == 1:
        tasks = list(only)
    else:
        tasks = _task_of_file(path, code, known)
        if not tasks:
            out.skipped.append(f"{path}: cannot tell which task it is for (name it after the task or use --tasks)")
            return
        tasks = [t for t in tasks if not only or t in only]
    for task in tasks:
        provenance = MappingProxyType({"method": "file", "path": str(path)})
        out.candidates.append(Candidate(name=str(path), task=task, code=code, provenance=provenance))


def _task_of_file(path: Path, code: str, known: set[str]) -> list[str]:
    """The task a .py file is for, from the strongest evidence there is: its name is a task's (a KernelBench
    problem's: `level1/19_ReLU.py`, or `19_ReLU.py` when no other level has that stem); it defines exactly one
    task's entry point; a folder it sits in is named after a task (`gelu/wrong/x.py`, `level1/19_ReLU/x.py`); its
    name starts with a task's (`gelu_v2.py`, the longest such task)."""
    if path.stem in known:
        return [path.stem]
    in_level = f"{path.parent.name}/{path.stem}"
    if in_level in known:
        return [in_level]
    by_stem = [t for t in known if t.rpartition("/")[2] == path.stem and "/" in t]
    if len(by_stem) == 1:
        return by_stem
    try:
        defined = {n.name for n in syntax.parse(code).body if isinstance(n, ast.FunctionDef)} & known
    except SyntaxError:
        defined = set()
    if len(defined) == 1:
        return sorted(defined)
    parents = path.resolve().parents
    folders = [name for parent in parents for name in (parent.name, f"{parent.parent.name}/{parent.name}")
               if name in known]
    if folders:
        return folders[:1]
    by_name = [t for t in known if path.stem.startswith(t + "_") or path.stem.startswith(t + "-")]
    return [max(by_name, key=len)] if by_name else []


def _from_jsonl(path: Path, entries: Mapping[str, str], only: Sequence[str] | None, out: Ingested) -> None:
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except ValueError as exc:
            out.skipped.append(f"{where}: not valid JSON ({exc.msg})")
            continue
        if not isinstance(record, dict) or not isinstance(record.get("task"), str):
            out.skipped.append(f"{where}: expected an object with a string \"task\"")
            continue
        task = record["task"]
        if task not in entries:
            out.skipped.append(f"{where}: unknown task {task!r}")
            continue
        if only and task not in only:
            continue
        out.candidates.append(_from_record(where, task, entries[task], record))


def _from_record(where: str, task: str, entry_point: str, record: dict[str, object]) -> Candidate:
    name = str(record.get("name") or where)
    provenance = {k: v for k, v in record.items() if k not in {"task", "code"}}
    provenance.setdefault("method", "jsonl")
    if isinstance(record.get("code"), str):
        return Candidate(name, task, record["code"], provenance=MappingProxyType(provenance))  # type: ignore[arg-type]
    if isinstance(record.get("response"), str):
        extraction = extract_code(record["response"], entry_point)  # type: ignore[arg-type]
        provenance["response"] = record["response"]
        return Candidate(
            name, task, extraction.code, provenance=MappingProxyType(provenance), problem=extraction.problem
        )
    return Candidate(name, task, None, provenance=MappingProxyType(provenance),
                     problem="the record has neither \"code\" nor \"response\"")
