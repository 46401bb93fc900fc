"""The trusted worker judges perturbed cases on the params they carry (run in-process: `_State` is what the
spawned worker serves)."""

import json
import os

import pytest
import torch

from kbx.evaluation.cases import plan_cases, workload_of
from kbx.evaluation.outputs import pack_outputs
from kbx.evaluation.trusted.worker import _State
from kbx.tasks.meta import read_task
from kbx.tasks.module import import_task
from kbx.tasks.registry import default_suite_root
from kbx.timing.sol import minimum_bytes

RELU = read_task(default_suite_root() / "Activation" / "relu")


def _judge(tmp_path, case, output):
    torch.save({"outputs": pack_outputs(output)}, tmp_path / "case.pt")
    sent = {**json.loads(json.dumps(case.to_json())), "file": "case.pt"}
    (result,) = _State("cpu").check(str(RELU.path), str(tmp_path), [sent])
    return [c["status"] for c in result["comparisons"]]


def test_perturbed_case_is_judged_on_its_own_sizes(tmp_path):
    case = next(c for c in plan_cases(RELU, "cpu", 5) if c.params is not None)
    sent = json.loads(json.dumps(case.to_json()))
    generator = torch.Generator().manual_seed(case.seed)
    inputs = import_task(RELU).make_inputs(workload_of(RELU, sent), case.dtype, generator)
    assert list(inputs["input"].shape) == case.params["shape"] != RELU.workload("check_tail").params["shape"]
    assert _judge(tmp_path, case, torch.relu(inputs["input"])) == ["PASSED"]
    published = torch.zeros(RELU.workload("check_tail").params["shape"])
    assert _judge(tmp_path, case, published) == ["WRONG_SHAPE"]


def test_an_allclose_case_is_judged_against_the_float64_truth_computed_once_and_cached(tmp_path, monkeypatch):
    from kbx.evaluation.trusted import bases

    gelu = read_task(default_suite_root() / "Activation" / "gelu")
    case = next(c for c in plan_cases(gelu, "cpu", 5) if c.workload == "check_tail" and c.dtype == "bfloat16")
    sent = {**json.loads(json.dumps(case.to_json())), "file": "case.pt"}
    generator = torch.Generator().manual_seed(case.seed)
    inputs = import_task(gelu).make_inputs(workload_of(gelu, sent), case.dtype, generator)
    runs = []
    real = bases.float64_reference
    monkeypatch.setattr(bases, "float64_reference", lambda *a: runs.append(1) or real(*a))
    state = _State("cpu")
    exact = torch.nn.functional.gelu(inputs["input"].double()).to(torch.bfloat16)
    for output, status in [(exact, "PASSED"), (exact * 1.25, "MISMATCH")]:
        torch.save({"outputs": pack_outputs(output)}, tmp_path / "case.pt")
        (result,) = state.check(str(gelu.path), str(tmp_path), [sent])
        (comparison,) = result["comparisons"]
        assert comparison["status"] == status and comparison["against"] == "float64"
    # one truth and three perturbed runs, once: eager bf16, truth and P in float32, the envelope
    assert len(runs) == 4 and state._references.bytes == (2 + 4 + 4) * exact.numel() + 8 * 2100


def test_each_slot_compiles_its_own_reference_past_dynamos_recompile_limit():
    """Dynamo keeps compiled entries per code object and runs eagerly past its recompile limit: a task with more
    bench slots than the limit would time eager as "compile". `own_code` gives every slot its own entry."""
    import torch

    from kbx.evaluation.trusted.worker import own_code

    compiled: list[int] = []

    def counting(graph, example_inputs):
        compiled.append(1)
        return graph.forward

    def reference(x, scale=2.0):
        return x * scale + 1

    shapes = [(n,) for n in range(3, 15)]  # more shapes than the default limit of 8
    torch._dynamo.reset()
    shared = torch.compile(reference, backend=counting, dynamic=False)
    for shape in shapes:
        shared(torch.ones(shape))
    assert len(compiled) < len(shapes)  # the problem: the later shapes ran eagerly

    compiled.clear()
    for shape in shapes:
        x = torch.ones(shape)
        assert torch.equal(torch.compile(own_code(reference), backend=counting, dynamic=False)(x), reference(x))
    assert len(compiled) == len(shapes)
    assert own_code(reference).__code__ is not reference.__code__
    assert own_code(len) is len
    torch._dynamo.reset()


def test_prepare_counts_each_slots_work_and_judges_the_compiled_baselines_first_call(monkeypatch):
    state = _State("cpu")
    first_calls: list[tuple[str, str]] = []

    def compiled(code, case):
        if case["workload"] == "check_tail":
            raise RuntimeError("inductor says no")
        if case["dtype"] == "bfloat16":  # computes something else (as a precision flag left unset would)
            return lambda **inputs: code.reference(**inputs) * 1.01
        return lambda **inputs: first_calls.append((case["workload"], case["dtype"])) or code.reference(**inputs)

    monkeypatch.setattr(state, "_compiled", compiled)
    slots = [{"case": {"workload": workload, "role": "check", "dtype": dtype}, "seeds": [11, 12, 13]}
             for workload, dtype in (("smoke", "float32"), ("smoke", "bfloat16"), ("check_tail", "float32"))]
    answers = state.prepare(str(RELU.path), slots)
    assert first_calls == [("smoke", "float32")]
    for slot, answer in zip(slots, answers):
        assert {k: answer[k] for k in ("flops", "bytes")} == state.work(str(RELU.path), slot["case"], slot["seeds"])
        assert answer["bytes"] > 0
    assert not {"compile_error", "compile_differs"} & set(answers[0])
    assert answers[1]["compile_differs"].startswith("MISMATCH") and "compile_error" not in answers[1]
    assert "inductor says no" in answers[2]["compile_error"]


def test_work_takes_a_tasks_min_bytes_over_every_tensor_read_whole():
    nll = read_task(default_suite_root() / "Loss" / "nll_loss")
    code = import_task(nll)
    case = {"workload": "check_mean_weighted", "role": "check", "dtype": "float32"}
    inputs = code.make_inputs(nll.workload("check_mean_weighted"), "float32", torch.Generator().manual_seed(7))
    work = _State("cpu").work(str(nll.path), case, [7, 8, 9])
    assert work["bytes"] == code.min_bytes(**inputs) < minimum_bytes(inputs, code.reference(**inputs))


def test_a_healthy_device_is_not_broken():
    assert _State("cpu").device_broken() is None


def test_running_out_of_memory_costs_that_request_alone(monkeypatch):
    """A reference too large for what the candidates left of the device: that evaluation is not judged (and can be
    resumed), the cache is emptied, and the next request is served; the run does not end."""
    from multiprocessing import Pipe

    from kbx.evaluation.trusted import worker

    monkeypatch.setattr(worker.signal, "signal", lambda *args: None)
    monkeypatch.setattr(worker, "set_undumpable", lambda: None)
    calls = []

    def work(self, **payload):
        calls.append(payload)
        if len(calls) == 1:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 3.00 GiB")
        return {"bytes": 1}

    monkeypatch.setattr(worker._State, "work", work)
    ours, theirs = Pipe()
    for _ in range(2):
        ours.send(("work", {"task_dir": str(RELU.path)}))
    ours.send(None)
    worker.serve(theirs, "cpu")
    first, second = ours.recv(), ours.recv()
    assert first[0] == "error" and first[1].startswith("ReferenceFailed: the trusted worker ran out of memory")
    assert second == ("ok", {"bytes": 1})


def test_an_orchestrator_gone_mid_request_ends_the_worker_quietly(monkeypatch):
    """An interrupted run closes its end while a request is being served: the worker returns, no traceback."""
    from multiprocessing import Pipe

    from kbx.evaluation.trusted import worker

    monkeypatch.setattr(worker.signal, "signal", lambda *args: None)
    monkeypatch.setattr(worker, "set_undumpable", lambda: None)
    ours, theirs = Pipe()

    def work(self, **payload):
        ours.close()  # the orchestrator goes away before the answer
        return {"bytes": 1}

    monkeypatch.setattr(worker._State, "work", work)
    ours.send(("work", {"task_dir": str(RELU.path)}))
    ours.send(("work", {"task_dir": str(RELU.path)}))
    worker.serve(theirs, "cpu")  # returns (before the fix: BrokenPipeError); the send fails, so would the next recv


def test_shared_outputs_without_their_descriptors_are_unreadable_and_every_descriptor_is_closed(tmp_path):
    """The file and the descriptors beside it are the candidate process's: a `shared` marker with no descriptor
    (or on a device that shares nothing) is an unreadable case, and descriptors sent along are closed either way."""
    case = plan_cases(RELU, "cpu", 5)[0]
    marker = {"type": "shared", "block": {"size": 2 << 20, "nbytes": 8, "dtype": "float32", "shape": [2]}}
    torch.save({"outputs": [marker]}, tmp_path / "case.pt")
    sent = {**json.loads(json.dumps(case.to_json())), "file": "case.pt"}
    (result,) = _State("cpu").check(str(RELU.path), str(tmp_path), [sent])
    assert "1 shared output(s), and 0 descriptor(s)" in result["error"]
    spare = os.open(os.devnull, os.O_RDONLY)
    (result,) = _State("cpu").check(str(RELU.path), str(tmp_path), [sent], descriptors=[spare])
    assert "1 shared output(s), and 1 descriptor(s)" in result["error"]
    with pytest.raises(OSError):
        os.fstat(spare)



def test_a_task_is_read_once_while_its_file_stays_the_same_and_again_once_it_changes(tmp_path, monkeypatch):
    import shutil

    from kbx.tasks import registry

    folder = tmp_path / "Activation" / "relu"
    shutil.copytree(RELU.path, folder, ignore=shutil.ignore_patterns("__pycache__"))
    reads = []
    real = registry.task_at
    monkeypatch.setattr(registry, "task_at", lambda path: reads.append(path) or real(path))
    state = _State("cpu")
    first = state._task_code(folder)
    assert state._task_code(folder) is first and len(reads) == 1  # not parsed again for every case
    task_file = folder / "task.py"
    task_file.write_text(task_file.read_text() + "\n# edited\n")
    edited = state._task_code(folder)
    assert len(reads) == 2 and edited is not first and edited.task.version != first.task.version


@pytest.mark.parametrize("step", ["bases", "_gold"])
def test_no_memory_for_the_float64_run_is_not_a_missing_float64_path(step):
    """Out of memory for the float64 run raises (the evaluation is judged again alone), where a reference that has
    no float64 path leaves the tolerances to judge: judged so, an honest fp16 kernel failed a 2^31 bench."""
    from types import SimpleNamespace

    from kbx.evaluation.trusted.bases import bases_if_any

    softmax = read_task(default_suite_root() / "Normalization" / "softmax")
    code = import_task(softmax)
    workload = softmax.workload("check_long_rows")
    inputs = code.make_inputs(workload, "float32", torch.Generator().manual_seed(3))
    outputs = [code.reference(**inputs)]

    def reference(failure):
        def run(**given):
            if any(isinstance(v, torch.Tensor) and v.dtype == torch.float64 for v in given.values()):
                raise failure
            return code.reference(**given)
        return SimpleNamespace(reference=run, task=code.task, make_inputs=code.make_inputs)

    state = _State("cpu")
    case = {"workload": "check_long_rows", "role": "check", "dtype": "float32", "seed": 3}

    def attempt(failure):
        fake = reference(failure)
        if step == "bases":
            return bases_if_any(fake, inputs, outputs, "float32", workload)
        return state._gold(fake, case, workload)

    assert attempt(TypeError("this reference insists on its dtype")) is None
    with pytest.raises(torch.OutOfMemoryError):
        attempt(torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 17.00 GiB"))


def test_references_kept_for_other_cases_give_way_to_the_case_at_hand(monkeypatch):
    """Out of memory while the cache holds other cases' references: computed again without them, not left unjudged;
    with nothing cached to give up, out of memory stands."""
    state = _State("cpu")
    code = import_task(RELU)
    workload = RELU.workload("check_tail")
    case = {"workload": "check_tail", "role": "check", "dtype": "float32", "seed": 11}
    computed = state._computed_reference
    calls = []

    def short_once(*args, **kwargs):
        calls.append(len(state._references.entries))
        if len(calls) == 1:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 16.00 GiB")
        return computed(*args, **kwargs)

    state._references.keep(("another task", 0, 0, "{}", True), ([torch.zeros(4)], None))
    monkeypatch.setattr(state, "_computed_reference", short_once)
    outputs, _ = state._reference(code, case, workload)
    assert calls == [1, 0] and torch.equal(outputs[0], code.reference(**state._inputs(code, case, workload)))
    calls.clear()
    state._references.clear()
    with pytest.raises(torch.OutOfMemoryError):
        state._reference(code, {**case, "seed": 12}, workload)


def test_a_recheck_or_a_case_no_later_candidate_asks_for_is_judged_without_keeping_its_reference(tmp_path):
    """The performance stage's re-check (index -1) draws a seed of its own, and a run with one candidate per task
    (`cache`: False) asks for no case twice: such references take no room from those later candidates reuse."""
    case = next(c for c in plan_cases(RELU, "cpu", 5) if c.workload == "check_tail")
    generator = torch.Generator().manual_seed(case.seed)
    inputs = import_task(RELU).make_inputs(workload_of(RELU, case.to_json()), case.dtype, generator)
    torch.save({"outputs": pack_outputs(torch.relu(inputs["input"]))}, tmp_path / "case.pt")
    state = _State("cpu")
    for index, cache, kept in [(-1, True, 0), (case.index, False, 0), (case.index, True, 1)]:
        sent = {**json.loads(json.dumps(case.to_json())), "file": "case.pt", "index": index, "cache": cache}
        (result,) = state.check(str(RELU.path), str(tmp_path), [sent])
        assert [c["status"] for c in result["comparisons"]] == ["PASSED"]
        assert len(state._references.entries) == kept


def test_a_tasks_bench_workloads_are_sized_on_request():
    assert _State("cpu").footprint(str(RELU.path)) == {"bench": 2 * 4 * 16384 * 32768}


def test_release_keeps_the_cached_references_unless_asked_to_drop_everything(tmp_path):
    case = next(c for c in plan_cases(RELU, "cpu", 5) if c.role == "smoke")
    sent = {**json.loads(json.dumps(case.to_json())), "file": "case.pt"}
    generator = torch.Generator().manual_seed(case.seed)
    inputs = import_task(RELU).make_inputs(workload_of(RELU, sent), case.dtype, generator)
    torch.save({"outputs": pack_outputs(torch.relu(inputs["input"]))}, tmp_path / "case.pt")
    state = _State("cpu")
    state.check(str(RELU.path), str(tmp_path), [sent])
    state.release()
    assert state._references.entries
    state.release(everything=True)  # before an evaluation runs with the GPU to itself
    assert not state._references.entries and not state._kept_outputs
