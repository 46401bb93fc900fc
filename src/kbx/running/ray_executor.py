"""The Ray backend (DESIGN §7): beyond one host, one Ray actor per GPU, each holding an `Evaluator`.

`kbx run --executor ray --ray-address ADDRESS` connects to a Ray cluster (or starts a local one when no address is
given), places one actor per GPU (`num_gpus=1`, so Ray pins the actor and every process it starts to its GPU), and
hands each actor (task, candidate) pairs from the runner's one queue. The actor evaluates with the same pipeline as
the local executor and returns the `Evaluation`; the orchestrator writes the store. Tasks travel by name and suite
folder, candidates as plain fields: the suite must be at the same path on every node (a shared checkout).

Ray is imported lazily: it is an optional dependency (`pip install ray`), absent from the GPU machines kbx is tested
on; without it the executor says how to install it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kbx.candidates.policy import Policy
from kbx.candidates.source import Candidate
from kbx.errors import KbxError
from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.cases import new_secret_seed
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.evaluation.result import Evaluation
from kbx.tasks.spec import Task


class EvaluatorActor:
    """Runs inside a Ray actor: one Evaluator on the GPU Ray gave the actor (or on the CPU)."""

    def __init__(self, device: str, timeout_s: float | None, secret_seed: int, timing: dict[str, Any] | None,
                 suite: str | None, confined: bool = True) -> None:
        from kbx.evaluation.orchestrator.pipeline import Evaluator
        from kbx.tasks.registry import load_suite

        limits = Limits(timeout_s=timeout_s, confined=confined)
        settings = TimingSettings(**timing) if timing is not None else None
        self._evaluator = Evaluator(device, limits, secret_seed, timing=settings)
        self._tasks = {t.name: t for t in load_suite(suite)}

    def describe(self) -> dict[str, Any]:
        import os

        e = self._evaluator
        return {"device": e.device, "environment": e.environment, "gpu": os.environ.get("CUDA_VISIBLE_DEVICES")}

    def evaluate(self, task: str, candidate: dict[str, Any]) -> Evaluation:
        import os
        from dataclasses import replace

        fields = {**candidate, "policy": Policy(candidate["policy"])}
        evaluation = self._evaluator.evaluate(self._tasks[task], Candidate(**fields))
        ray_gpu = os.environ.get("CUDA_VISIBLE_DEVICES")
        return replace(evaluation, environment={**evaluation.environment, "ray_gpu": ray_gpu})

    def close(self) -> None:
        self._evaluator.close()


class RayEvaluator:
    """What the runner needs of an evaluator, forwarded to one Ray actor."""

    def __init__(self, actor: Any, ray: Any, secret_seed: int, timing: TimingSettings | None) -> None:
        self._actor, self._ray = actor, ray
        info = ray.get(actor.describe.remote())
        self.device: str = info["device"]
        self.environment: dict[str, Any] = {**info["environment"], "ray_gpu": info["gpu"]}
        self.gpu: str | None = None
        self.secret_seed = secret_seed
        self.timing = timing

    def evaluate(self, task: Task, candidate: Candidate) -> Evaluation:
        fields = {"name": candidate.name, "task": candidate.task, "code": candidate.code,
                  "backend": candidate.backend, "provenance": dict(candidate.provenance),
                  "problem": candidate.problem, "policy": candidate.policy.value}
        return self._ray.get(self._actor.evaluate.remote(task.name, fields))

    def close(self) -> None:
        self._ray.get(self._actor.close.remote())


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise KbxError("--executor ray needs Ray: pip install 'ray>=2.9'") from exc
    return ray


@contextmanager
def open_ray_evaluators(
    device: str, actors: int | None, limits: Limits | None, secret_seed: int | None, address: str | None,
    suite: str | Path | None, timing: TimingSettings | None = TimingSettings(),  # noqa: B008 - frozen
) -> Iterator[list[RayEvaluator]]:
    """One actor per GPU of the cluster (or `actors` of them); on a cluster without GPUs, `actors` CPU actors."""
    ray = _import_ray()
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    seed = new_secret_seed() if secret_seed is None else secret_seed
    gpus = int(ray.cluster_resources().get("GPU", 0))
    count = actors or gpus or 1
    per_actor_gpu = 1 if gpus >= count and gpus else 0
    remote = ray.remote(num_gpus=per_actor_gpu, num_cpus=1)(EvaluatorActor)
    timing_json = timing.to_json() if timing is not None else None
    timeout = limits.timeout_s if limits else None
    confined = limits.confined if limits else True
    handles = [remote.remote(device, timeout, seed, timing_json, str(suite) if suite else None, confined)
               for _ in range(count)]
    evaluators = [RayEvaluator(handle, ray, seed, timing) for handle in handles]
    try:
        yield evaluators
    finally:
        for evaluator in evaluators:
            try:
                evaluator.close()
            except Exception:  # an actor that died has nothing left to close
                pass
        for handle in handles:
            ray.kill(handle)
        if started:
            ray.shutdown()
