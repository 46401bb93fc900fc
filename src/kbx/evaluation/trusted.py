"""The trusted worker: one long-lived process per device that owns reference outputs (DESIGN §4).

It regenerates inputs from (task, workload, dtype, seed), computes and caches reference outputs, and judges
the outputs candidate workers saved against the contract. It never
imports candidate code, and loads candidate files with `weights_only=True` so no pickled code can run here.
"""

from __future__ import annotations

import multiprocessing
import traceback
from collections import OrderedDict
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from kbx.errors import KbxError

_CACHE_BYTES = 4 << 30


class TrustedWorker:
    """Handle on the trusted process; requests are synchronous."""

    def __init__(self, device: str = "auto") -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(child, device), name="kbx-trusted", daemon=True)
        self._process.start()
        child.close()
        hello = self.request("hello", {})
        self.device: str = hello["device"]
        self.environment: dict[str, Any] = hello["environment"]

    def request(self, kind: str, payload: dict[str, Any]) -> Any:
        self._conn.send((kind, payload))
        try:
            status, value = self._conn.recv()
        except EOFError:
            raise RuntimeError(f"the trusted worker died (exit code {self._process.exitcode})") from None
        if status == "error":
            if value.startswith("KbxError: "):
                raise KbxError(value.removeprefix("KbxError: "))
            raise RuntimeError(f"trusted worker failed on {kind!r}:\n{value}")
        return value

    def check(self, task_dir: Path, job_dir: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Judge the saved outputs of completed cases; returns one result dict per case."""
        return self.request("check", {"task_dir": str(task_dir), "job_dir": str(job_dir), "cases": cases})

    def close(self) -> None:
        if self._process.is_alive():
            try:
                self._conn.send(None)
            except (BrokenPipeError, OSError):
                pass
            self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()
        self._conn.close()


def _serve(conn: Connection, device: str) -> None:
    state = _State(device)
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        kind, payload = message
        try:
            conn.send(("ok", getattr(state, kind)(**payload)))
        except KbxError as exc:
            conn.send(("error", f"KbxError: {exc}"))
        except Exception:  # a harness bug: report it to the orchestrator, which raises
            conn.send(("error", traceback.format_exc()))


class _State:
    def __init__(self, device: str) -> None:
        import torch

        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        if device == "cuda" and not torch.cuda.is_available():
            raise KbxError("--device cuda was asked for but torch sees no CUDA GPU")
        self.device = device
        self._references: OrderedDict[tuple[str, int], list[Any]] = OrderedDict()
        self._cached_bytes = 0
        self._tasks: dict[str, Any] = {}

    def hello(self) -> dict[str, Any]:
        from kbx.evaluation.environment import fingerprint

        return {"device": self.device, "environment": fingerprint(self.device)}

    def check(self, task_dir: str, job_dir: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        import torch

        from kbx.evaluation.compare import compare
        from kbx.evaluation.outputs import unpack_output

        code = self._task_code(Path(task_dir))
        task = code.task
        results = []
        for case in cases:
            workload = task.workload(case["workload"])
            try:
                saved = torch.load(Path(job_dir) / case["file"], map_location=self.device, weights_only=True)
            except Exception as exc:  # the file is the candidate process's: unreadable means it tampered
                results.append({"index": case["index"], "error": f"{type(exc).__name__}: {str(exc)[:300]}"})
                continue
            if not isinstance(saved, dict) or not isinstance(saved.get("outputs"), list):
                results.append({"index": case["index"], "error": "the file does not hold a list of outputs"})
                continue
            expected = self._reference(code, case)
            outputs = [unpack_output(item) for item in saved["outputs"]]
            comparisons = compare(outputs, expected, task.contract, case["dtype"], workload)
            results.append({"index": case["index"], "comparisons": [c.to_json() for c in comparisons]})
        return results

    def _task_code(self, folder: Path) -> Any:
        from kbx.tasks.meta import read_task
        from kbx.tasks.module import import_task

        key = str(folder)
        task = read_task(folder)
        cached = self._tasks.get(key)
        if cached is None or cached.task.version != task.version:
            cached = self._tasks[key] = import_task(task)
        return cached

    def _inputs(self, code: Any, case: dict[str, Any]) -> dict[str, Any]:
        import torch

        generator = torch.Generator(device=self.device).manual_seed(case["seed"])
        return code.make_inputs(code.task.workload(case["workload"]), case["dtype"], generator)

    def _reference(self, code: Any, case: dict[str, Any]) -> list[Any]:
        import torch

        key = (code.task.version, case["seed"])
        if key in self._references:
            self._references.move_to_end(key)
            return self._references[key]
        with torch.no_grad():
            result = code.reference(**self._inputs(code, case))
        outputs = list(result) if isinstance(result, (tuple, list)) else [result]
        size = sum(t.numel() * t.element_size() for t in outputs if isinstance(t, torch.Tensor))
        self._references[key] = outputs
        self._cached_bytes += size
        while self._cached_bytes > _CACHE_BYTES and len(self._references) > 1:
            _, old = self._references.popitem(last=False)
            self._cached_bytes -= sum(t.numel() * t.element_size() for t in old if isinstance(t, torch.Tensor))
        return outputs
