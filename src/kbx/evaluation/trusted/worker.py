"""The trusted worker: one long-lived process per device that owns reference outputs (DESIGN §4).

It regenerates inputs from (task, workload, dtype, seed), computes and caches reference outputs, and judges
the outputs candidate workers saved against the contract. Cases arrive as `Case.to_json` dicts, whose workload
`kbx.evaluation.cases.workload_of` rebuilds (a perturbed one carries its params). It never imports candidate
code, and loads candidate files with `weights_only=True` so no pickled code can run here.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import traceback
from collections import OrderedDict
from multiprocessing.connection import Connection
from multiprocessing.reduction import recvfds
from pathlib import Path
from typing import Any

from kbx.errors import KbxError, ReferenceFailed
from kbx.evaluation.cases import workload_of
from kbx.evaluation.confinement.libc import set_undumpable
from kbx.evaluation.protocol import DESCRIPTORS, TRUSTED_REQUESTS
from kbx.evaluation.trusted.references import ReferenceCache
from kbx.evaluation.trusted.timing import TimingRequests, own_code  # noqa: F401 - own_code: re-exported
from kbx.tasks.spec import Workload

_KEPT_OUTPUTS = 64
"""Kept case outputs (small: the first case of a randomised task) across the jobs one trusted worker serves."""
_IDLE_BYTES = 1 << 30
"""Cached-but-unused GPU memory above which the trusted worker returns it to the driver."""


def _first_line(exc: BaseException) -> str:
    """An exception's message cut to its first line (torch's CUDA errors run to several), at most 240 characters."""
    return (str(exc).strip().splitlines() or [""])[0][:240]


def serve(conn: Connection, device: str, gpu: str | None = None) -> None:
    """Answer the orchestrator's requests on `conn` until it says stop (None) or closes it."""
    # An interrupt (Ctrl-C, `timeout -s INT`) reaches the whole process group: the orchestrator handles it and
    # closes this worker; here it would only end a request half-served with a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_undumpable()  # it holds the reference outputs: no other process may read its memory
    if gpu is not None:  # before CUDA initialises in this process
        os.environ["CUDA_VISIBLE_DEVICES"] = gpu
    state: _State | None = None
    refusal: KbxError | None = None
    try:
        state = _State(device)
    except KbxError as exc:  # the user's mistake (no GPU for --device cuda): one line, as the answer to `hello`
        refusal = exc
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the orchestrator closed or went away (an interrupted run): nothing to answer
            return
        if message is None:
            return
        kind, payload = message
        if isinstance(payload, dict) and payload.get(DESCRIPTORS):
            with socket.socket(fileno=os.dup(conn.fileno())) as link:
                payload[DESCRIPTORS] = recvfds(link, int(payload[DESCRIPTORS]))
        if state is None:
            conn.send(("error", f"KbxError: {refusal}"))
            return
        reply: tuple[str, Any]
        try:
            if kind not in TRUSTED_REQUESTS:
                raise ValueError(f"no such request: {kind!r}")
            reply = ("ok", getattr(state, kind)(**payload))
        except KbxError as exc:
            name = type(exc).__name__ if isinstance(exc, ReferenceFailed) else "KbxError"
            reply = ("error", f"{name}: {exc}")
        except Exception as exc:
            if _out_of_memory(exc):  # the device is shared with the candidates: this evaluation is not judged
                state.forget_memory()
                reply = ("error", f"ReferenceFailed: the trusted worker ran out of memory serving {kind!r} "
                                  f"({_first_line(exc)})")
            else:  # a harness bug: report it to the orchestrator, which raises
                reply = ("error", traceback.format_exc())
        broken = state.device_broken()
        if broken is not None:  # every later CUDA call here would fail too: this process is done
            _answer(conn, ("lost", f"the trusted worker's GPU context broke ({broken})"))
            return
        if not _answer(conn, reply):
            return


def _answer(conn: Connection, reply: tuple[str, Any]) -> bool:
    """Send `reply`; False when the orchestrator is gone (an interrupted run closed its end)."""
    try:
        conn.send(reply)
    except OSError:  # BrokenPipeError, ConnectionResetError
        return False
    return True


def _out_of_memory(exc: BaseException) -> bool:
    return isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError"


class _State(TimingRequests):
    def __init__(self, device: str) -> None:
        import torch

        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        if device == "cuda" and not torch.cuda.is_available():
            raise KbxError("--device cuda was asked for but torch sees no CUDA GPU")
        self.device = device
        self._references = ReferenceCache(device)
        """Per case, the reference outputs and (for contracts judged against the float64 truth) their bases."""
        self._kept_outputs: OrderedDict[tuple[str, int], list[Any]] = OrderedDict()
        """Outputs of cases a later case of the same job is compared with (`_against_twin`), newest last."""
        self._tasks: dict[str, Any] = {}
        self._task_sources: dict[str, bytes] = {}
        """The source file each of `_tasks` was read from, as it was then."""
        self._compiled_references: dict[tuple[str, str, str], Any] = {}
        self._sets: Any = None
        self._sets_task = ""
        self._clock: Any = None
        self._flusher: Any = None
        self._refresh: Any = None

    def device_broken(self) -> str | None:
        """None while the device can still run work; else the first line of the error it now raises for every
        call (a device-side assert, an illegal address: the CUDA context is unusable until the process ends)."""
        import torch

        if self.device != "cuda":
            return None
        try:
            torch.cuda.synchronize()
        except Exception as exc:
            return f"{type(exc).__name__}: {_first_line(exc)}"
        return None

    def hello(self) -> dict[str, Any]:
        from kbx.evaluation.environment import fingerprint

        return {"device": self.device, "environment": fingerprint(self.device)}

    def check(
        self, task_dir: str, job_dir: str, cases: list[dict[str, Any]], descriptors: list[int] | None = None
    ) -> list[dict[str, Any]]:
        """Judge each case's saved outputs; `descriptors`: the CUDA descriptors of their shared outputs, in order
        (each case takes as many as its file has `shared` markers; every one is closed here)."""
        waiting = list(descriptors or [])
        try:
            return [self._check_case(Path(task_dir), Path(job_dir), case, waiting) for case in cases]
        finally:
            for fd in waiting:
                os.close(fd)
            self._free_cached()

    def _check_case(self, task_dir: Path, job_dir: Path, case: dict[str, Any], waiting: list[int]) -> dict[str, Any]:
        """One case's result: its comparisons, or the reason its outputs could not be read."""
        from kbx import kernelbench_rule as rules
        from kbx.evaluation.trusted.compare import (
            TASK_CHECKED,
            judge,
            kernelbench_judge,
            second_opinion,
            wants_second_opinion,
        )

        code = self._task_code(task_dir)
        task = code.task
        workload = workload_of(task, case)
        outputs = self._saved_outputs(job_dir / case["file"], waiting)
        if isinstance(outputs, str):  # the file and descriptors are the candidate process's: unreadable means tampered
            return {"index": case["index"], "error": outputs}
        if case.get(rules.CASE_RULE) == rules.NAME:  # KernelBench's own rule, judged beside kbx's verdict
            expected, _ = self._reference(code, case, workload, truth=False)
            comparisons = kernelbench_judge(outputs, expected, case["dtype"], rules.ATOL, rules.RTOL)
            return {"index": case["index"], "comparisons": [c.to_json() for c in comparisons]}
        # Kept for later candidates of the task, unless the orchestrator says none come (`cache`: False) or the case
        # is the performance stage's re-check (index -1, a seed drawn for it alone)
        keep = case["index"] >= 0 and case.get("cache", True)
        expected, bases = self._reference(code, case, workload, keep=keep)
        inputs = self._inputs(code, case, workload) if task.contract.kind in TASK_CHECKED else None
        comparisons = judge(outputs, expected, inputs, code, task.contract, case["dtype"], workload, bases)
        if wants_second_opinion(comparisons, task.contract):
            gold = self._gold(code, case, workload)
            if gold is not None:
                # The second opinion can only rescue a verdict, never break the worker.
                with contextlib.suppress(Exception):
                    comparisons = second_opinion(
                        outputs, expected, gold, task.contract, case["dtype"], workload) or comparisons
        comparisons = self._against_twin(case, outputs, comparisons)
        return {"index": case["index"], "comparisons": [c.to_json() for c in comparisons]}

    def _saved_outputs(self, path: Path, waiting: list[int]) -> list[Any] | str:
        """The outputs a candidate worker saved in `path`, its shared ones copied out of the next descriptors of
        `waiting` (taken from it); or why they cannot be read."""
        import torch

        from kbx.evaluation.cuda_share import CudaShareError, SharedBlock, import_copy
        from kbx.evaluation.outputs import malformed_case_file, shared_count, unpack_output

        try:
            # mmap: the tensors' bytes go from the page cache straight to the device, with no copy in between
            saved = torch.load(path, map_location=self.device, weights_only=True, mmap=True)
        except Exception as exc:
            return f"{type(exc).__name__}: {str(exc)[:300]}"
        problem = malformed_case_file(saved)
        if problem:
            return problem
        wanted = shared_count(saved)
        if wanted > len(waiting) or (wanted and self.device != "cuda"):
            return f"the file names {wanted} shared output(s), and {len(waiting)} descriptor(s) came with it"
        mine = waiting[:wanted]
        del waiting[:wanted]
        try:
            return [unpack_output(item, lambda block: import_copy(mine.pop(0), SharedBlock.from_json(block)))
                    for item in saved["outputs"]]
        except CudaShareError as exc:
            return f"a shared output could not be read: {exc}"
        finally:
            for fd in mine:
                os.close(fd)

    def _eager_outputs(self, code: Any, inputs: dict[str, Any], where: str = "a bench workload") -> Any:
        """The reference's outputs on `inputs`; `ReferenceFailed` (naming `where`) if it raises."""
        import torch

        try:
            with torch.no_grad():
                return code.reference(**inputs)
        except Exception as exc:
            if _out_of_memory(exc):  # the device's memory, not the reference, failed
                raise
            raise ReferenceFailed(
                f"task {code.task.name}: its reference failed on {where}: {type(exc).__name__}: {_first_line(exc)}"
            ) from None

    def reference(self, task_dir: str, case: dict[str, Any]) -> dict[str, Any]:
        """Compute (and cache) one case's reference outputs, which stay here; `ReferenceFailed` when the reference
        cannot run there. Asked after a candidate failed during that case: a failure the reference shares (a
        KernelBench problem whose own model breaks at the shrunk sizes) is the task's, not the candidate's."""
        code = self._task_code(Path(task_dir))
        self._reference(code, case, workload_of(code.task, case))
        return {}

    def footprint(self, task_dir: str) -> dict[str, int]:
        """Bytes of each bench workload's inputs and outputs, sized without allocating (`footprint`)."""
        from kbx.evaluation.trusted.footprint import bench_footprint

        return bench_footprint(self._task_code(Path(task_dir)))

    def release(self, everything: bool = False) -> None:
        """Drop the timing input sets and give cached GPU memory back to the driver: the candidate workers that
        come next share the GPU, and memory this process keeps reserved is memory they cannot have. `everything`:
        the cached references and kept outputs too (`forget_memory`), before an evaluation runs with the GPU to
        itself."""
        if everything:
            self.forget_memory()
            return
        self._sets = None
        self._free_cached()

    def forget_memory(self) -> None:
        """After running out of memory: drop every cached reference, kept output and input set, and give the
        cached GPU memory back, so the next request starts from an empty cache."""
        self._references.clear()
        self._kept_outputs.clear()
        self._sets = None
        import torch

        if self.device == "cuda":
            torch.cuda.empty_cache()

    def _free_cached(self) -> None:
        import torch

        if self.device == "cuda" and torch.cuda.memory_reserved() - torch.cuda.memory_allocated() > _IDLE_BYTES:
            torch.cuda.empty_cache()

    def _task_code(self, folder: Path) -> Any:
        from kbx.tasks.module import import_task
        from kbx.tasks.registry import task_at

        key = str(folder)
        # A task's version is a hash of its source file: the same bytes, the same task, without parsing it again
        # for every case (a tenth of the worker's time on the CPU, `kbx run` over the suite)
        source = (folder if folder.is_file() else folder / "task.py").read_bytes()
        cached = self._tasks.get(key)
        if cached is not None and self._task_sources.get(key) == source:
            return cached
        task = task_at(folder)
        if cached is None or cached.task.version != task.version:
            cached = self._tasks[key] = import_task(task, register=True)  # no candidate code runs here
        self._task_sources[key] = source
        return cached

    def _against_twin(self, case: dict[str, Any], outputs: list[Any], comparisons: list[Any]) -> list[Any]:
        """Keep a case's outputs that a later case is compared with (`keep`), or compare with them (`twin`): the
        same seed must give the same outputs, a moved seed different ones (`reproducibility_cases`)."""
        from kbx.evaluation.trusted.compare import twin_verdict

        job = str(case.get("job", ""))
        if case.get("keep"):
            self._kept_outputs[(job, int(case["index"]))] = outputs
            while len(self._kept_outputs) > _KEPT_OUTPUTS:
                self._kept_outputs.popitem(last=False)
        if case.get("twin") is None or any(c.status.value != "PASSED" for c in comparisons):
            return comparisons
        earlier = self._kept_outputs.get((job, int(case["twin"])))
        if earlier is None:  # the twin's outputs were never kept (it failed, or was evicted): nothing to compare
            return comparisons
        failed = twin_verdict(outputs, earlier, same=not case.get("seed_shift"))
        return comparisons if failed is None else [failed]

    def _inputs(self, code: Any, case: dict[str, Any], workload: Workload) -> dict[str, Any]:
        """The case's inputs, drawn again (for contracts whose check reads them)."""
        import torch

        from kbx.evaluation.cases import with_seed_shift

        generator = torch.Generator(device=self.device).manual_seed(case["seed"])
        return with_seed_shift(code.make_inputs(workload, case["dtype"], generator), case)

    def _gold(self, code: Any, case: dict[str, Any], workload: Workload) -> list[Any] | None:
        """The reference on float64 copies of the case's floating-point inputs; None when it cannot run so (a
        reference that insists on its dtype). Running out of memory raises, as in `bases.bases_if_any`."""
        import torch

        from kbx.evaluation.outputs import output_items

        inputs = self._inputs(code, case, workload)
        wide = {k: v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v
                for k, v in inputs.items()}
        del inputs
        try:
            with torch.no_grad():
                return output_items(code.reference(**wide))
        except Exception as exc:  # any failure but memory's leaves the first judgement standing
            if _out_of_memory(exc):  # memory the other evaluations hold: this one is judged again alone
                raise
            return None
        finally:
            del wide
            if self.device == "cuda":
                torch.cuda.empty_cache()

    def _reference(
        self, code: Any, case: dict[str, Any], workload: Workload, truth: bool = True, keep: bool = True
    ) -> tuple[list[Any], list[Any] | None]:
        """The case's reference outputs and their bases (None unless the contract is judged against the float64
        truth, `truth` asks for it, and the truth could be computed), from the cache or computed once and cached
        (`keep`: where a later case may ask for it again)."""
        key = (code.task.version, case["seed"], int(case.get("seed_shift") or 0),
               json.dumps(dict(workload.params), sort_keys=True), truth)
        cached = self._references.get(key)
        if cached is not None:
            return cached
        try:
            entry = self._computed_reference(code, case, workload, truth)
        except Exception as exc:
            if not (_out_of_memory(exc) and self._references.entries):
                raise
            # The memory of other cases' references is no reason to leave this one unjudged (the relu, dropout and
            # mse_loss solutions' 2^31 benches one after another on an H200, 2026-11-27): once more without them.
            self._references.clear()
            self._free_cached()
            entry = self._computed_reference(code, case, workload, truth)
        if keep:
            self._references.keep(key, entry)
        return entry

    def _computed_reference(self, code: Any, case: dict[str, Any], workload: Workload, truth: bool
                            ) -> tuple[list[Any], list[Any] | None]:
        from kbx.evaluation.outputs import output_items
        from kbx.evaluation.trusted.bases import bases_if_any

        where = f"{case['workload']}/{case['dtype']}"
        try:
            inputs = self._inputs(code, case, workload)
        except Exception as exc:  # the task's own code cannot make this case (a KernelBench problem's sizes)
            if _out_of_memory(exc):
                raise
            raise ReferenceFailed(f"task {code.task.name}: its inputs could not be made for {where}: "
                                  f"{type(exc).__name__}: {_first_line(exc)}") from None
        outputs = output_items(self._eager_outputs(code, inputs, where))
        bases = (bases_if_any(code, inputs, outputs, case["dtype"], workload)
                 if truth and code.task.contract.against_truth else None)
        del inputs
        return outputs, bases


if __name__ == "__main__":  # started by `kbx.evaluation.orchestrator.trusted_client`: FD DEVICE [GPU]
    import sys

    serve(Connection(int(sys.argv[1])), sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
