"""Generating methods: oneshot, sample and refine, as chains of (ask the model -> evaluate) steps.

A chain is one sample of one task: oneshot and sample chains take one step, a refine chain iterates (feedback on
a failure, a request for a faster kernel once correct) until its iteration cap, or until `max_repairs`
consecutive attempts have failed. Chains of all tasks run concurrently on a thread pool: while some wait on the
model, others' candidates are being evaluated, so the GPU is not idle while the model thinks.

Every step is stored before the next begins: the model call in `generations` (conversation, reply, tokens), the
evaluation in `evaluations`. A resumed run walks the same chains and takes both from the store where it has them,
so nothing is asked or evaluated twice and a refine chain carries on from its last stored iteration.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from kbx.candidates.extract import extract_code
from kbx.candidates.source import Candidate
from kbx.errors import NotJudged
from kbx.generate.feedback import feedback
from kbx.generate.http import ProviderError
from kbx.generate.prompts import task_prompt
from kbx.generate.providers import Key, Message, Provider, Reply, Request, Usage
from kbx.generate.records import RunRecords
from kbx.generate.settings import GenerationSettings
from kbx.ranking import rank
from kbx.tasks.spec import Task

if TYPE_CHECKING:
    from kbx.methods.registry import Method

Row = Mapping[str, Any]
Evaluate = Callable[[Task, Candidate], Row]
"""Evaluates one candidate (or serves it from the store's cache), stores it, and returns its stored row."""

CHAIN_ENDING = frozenset({400, 413, 422})
"""HTTP statuses that end one chain rather than the run: the request itself was refused (a conversation grown
past the context window, say), so asking again would fail again. Auth, model and URL errors stop the run."""


class Stopped(Exception):
    """Raised in a chain when another chain failed and the run is stopping."""


@dataclass(frozen=True)
class Generation:
    """One model call of a run, as stored in the `generations` table."""

    task: str
    sample: int
    iteration: int
    candidate: str
    """The name of the candidate its reply became."""
    candidate_hash: str
    parent_hash: str | None
    """The candidate this reply answers feedback on (None for a chain's first call)."""
    provider: str
    model: str
    messages: tuple[Message, ...]
    reply: str
    finish_reason: str | None
    usage: Usage
    attempts: int
    latency_s: float
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task, "sample": self.sample, "iteration": self.iteration, "candidate": self.candidate,
            "candidate_hash": self.candidate_hash, "parent_hash": self.parent_hash, "provider": self.provider,
            "model": self.model, "messages": [m.to_json() for m in self.messages], "reply": self.reply,
            "finish_reason": self.finish_reason, "usage": self.usage.to_json(), "attempts": self.attempts,
            "latency_s": round(self.latency_s, 3), "raw": dict(self.raw),
        }


def candidate_name(iterates: bool, task: str, sample: int, iteration: int) -> str:
    """`relu#s3` for a sample, `relu#s0.i2` for an iteration of a method that iterates (refine)."""
    return f"{task}#s{sample}" + (f".i{iteration}" if iterates else "")


def reply_candidate(reply: str, task: Task, name: str, provenance: Mapping[str, Any]) -> tuple[Candidate, int]:
    """The candidate a reply becomes (no code -> a candidate the static stage rejects, saying why), and how many
    code blocks the reply had."""
    extraction = extract_code(reply, task.entry_point)
    candidate = Candidate(name, task.name, extraction.code, provenance=MappingProxyType(dict(provenance)),
                          problem=extraction.problem)
    return candidate, extraction.blocks


def better(best: Row | None, row: Row) -> Row | None:
    """The better of two rows, among correct ones only (`kbx.ranking.rank`); ties keep `best`."""
    if row["status"] != "PASSED":
        return best
    return row if best is None or rank(row) > rank(best) else best


@dataclass(frozen=True)
class Outcome:
    """What one chain ended with."""

    task: str
    sample: int
    steps: int
    best: str | None
    """The name of the best correct candidate, None when none passed."""
    best_hash: str | None
    stopped: str
    """Why the chain ended: `done`, `iterations`, `repairs`, `provider: ...` (a request the provider refused), or
    `unjudged: ...` (the task's reference failed, so its candidate could not be judged)."""

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task, "sample": self.sample, "steps": self.steps, "best": self.best,
                "best_hash": self.best_hash, "stopped": self.stopped}


class Session:
    """One generating run: a provider, an evaluate callable, and what the store already holds of the run."""

    def __init__(self, method: Method, settings: GenerationSettings, provider: Provider, evaluate: Evaluate,
                 store: RunRecords, run_id: str, suite: Mapping[str, Task], target: str | None,
                 say: Callable[[str], None] = lambda line: None) -> None:
        self.method, self.settings, self.provider, self.evaluate = method, settings, provider, evaluate
        self.store, self.run_id, self.suite, self.target, self.say = store, run_id, suite, target, say
        self.stored = {Key(g["task"], g["sample"], g["iteration"]): g for g in store.generations(run_id)}
        self.done = {(r["task"], r["candidate"]): r for r in store.rows(run_id)}
        self.reused = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def run(self, tasks: Sequence[Task], evaluation_slots: int) -> list[Outcome]:
        """Every chain of every task, on `concurrency + evaluation_slots` threads. The first exception (a provider
        failure, a harness bug) stops the chains at their next step and is raised once the steps in flight are
        stored. The threads are daemons, so an interrupt does not wait for a model still thinking."""
        chains = [(task, sample) for task in tasks for sample in range(self.settings.samples)]
        queue = deque(enumerate(chains))
        outcomes: dict[int, Outcome] = {}
        errors: list[BaseException] = []

        def worker() -> None:
            while not self._stop.is_set():
                with self._lock:
                    if not queue:
                        return
                    index, (task, sample) = queue.popleft()
                try:
                    outcomes[index] = self.chain(task, sample)
                except Stopped:
                    return
                except BaseException as exc:  # re-raised in the caller's thread below
                    errors.append(exc)
                    self._stop.set()
                    return

        count = max(1, min(len(chains), self.settings.concurrency + evaluation_slots))
        threads = [threading.Thread(target=worker, name=f"kbx-gen-{i}", daemon=True) for i in range(count)]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                thread.join()
        except BaseException:
            self._stop.set()
            raise
        if errors:
            raise errors[0]
        return [outcomes[i] for i in range(len(chains))]

    def chain(self, task: Task, sample: int) -> Outcome:
        """One sample of one task: a single step, or refine's loop."""
        messages = task_prompt(task, self.suite, self.target, self.settings.backend)
        best: Row | None = None
        parent: str | None = None
        failures = 0
        limit = self.method.steps(self.settings)
        for iteration in range(limit):
            try:
                reply, candidate, blocks, row = self.step(task, sample, iteration, messages, parent)
            except ProviderError as exc:
                if exc.status not in CHAIN_ENDING:
                    raise
                self.say(f"[model] {task.name}#s{sample}: chain ended: {exc}")
                return Outcome(task.name, sample, iteration, best and best["candidate"],
                               best and best["candidate_hash"], f"provider: {exc}")
            except NotJudged as exc:  # the task cannot judge this chain's candidates here; others go on
                return Outcome(task.name, sample, iteration, best and best["candidate"],
                               best and best["candidate_hash"], f"unjudged: {exc}")
            best = better(best, row)
            failures = 0 if row["status"] == "PASSED" else failures + 1
            stopped = ("done" if limit == 1 else "iterations") if iteration == limit - 1 else None
            if failures > self.settings.max_repairs:
                stopped = "repairs"
            elif stopped is None and row["status"] == "PASSED" and row.get("speedup_eager") is None:
                stopped = "correct"  # untimed (the CPU, --no-timing): asking for a faster kernel measures nothing
            if stopped is not None:
                return Outcome(task.name, sample, iteration + 1, best and best["candidate"],
                               best and best["candidate_hash"], stopped)
            messages = (*messages, Message("assistant", reply),
                        Message("user", feedback(row, iteration, blocks, best)))
            parent = candidate.hash
        raise AssertionError("unreachable: the last iteration returns")

    def step(self, task: Task, sample: int, iteration: int, messages: tuple[Message, ...], parent: str | None
             ) -> tuple[str, Candidate, int, Row]:
        """Ask (or take the stored reply), then evaluate (or take the stored row)."""
        if self._stop.is_set():
            raise Stopped()
        key = Key(task.name, sample, iteration)
        name = candidate_name(self.method.iterates, task.name, sample, iteration)
        stored = self.stored.get(key)
        if stored is not None:
            with self._lock:
                self.reused += 1
            text, usage = stored["reply"], Usage(**stored["usage"])
        else:
            request = Request(messages, key, self.settings.temperature, self.settings.max_tokens)
            answer = self.provider.complete(request)
            text, usage = answer.text, answer.usage
        provenance = {"method": self.method.name, "model": self.provider.name, "sample": sample, "iteration": iteration,
                      "parent": parent, "usage": usage.to_json(), "response": text}
        candidate, blocks = reply_candidate(text, task, name, provenance)
        if stored is None:
            self._record(task, key, name, candidate, parent, messages, answer)
        if self._stop.is_set():
            raise Stopped()
        row = self.done.get((task.name, name)) or self.evaluate(task, candidate)
        return text, candidate, blocks, row

    def _record(self, task: Task, key: Key, name: str, candidate: Candidate, parent: str | None,
                messages: tuple[Message, ...], reply: Reply) -> None:
        generation = Generation(
            task.name, key.sample, key.iteration, name, candidate.hash, parent, self.provider.name, reply.model,
            messages, reply.text, reply.finish_reason, reply.usage, reply.attempts, reply.latency_s, reply.raw,
        )
        self.store.add_generation(self.run_id, generation.to_json())
        usage = reply.usage
        tokens = ("tokens not reported" if usage.prompt_tokens is None or usage.completion_tokens is None
                  else f"{usage.prompt_tokens}+{usage.completion_tokens} tokens")
        how = "replayed" if reply.attempts == 0 else f"{reply.latency_s:.1f}s"
        retries = f", {reply.attempts} attempts" if reply.attempts > 1 else ""
        self.say(f"[model] {name:28s} {tokens}, {how}{retries}")
