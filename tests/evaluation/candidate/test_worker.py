import pytest
import torch

from kbx.evaluation import protocol
from kbx.evaluation.candidate.worker import _Session, refill
from kbx.evaluation.cuda_share import CudaShareError


def test_refill_writes_new_values_into_the_same_tensors_keeping_their_version():
    target = {"x": torch.zeros(4), "alpha": 2.0}
    x = target["x"]
    version = x._version
    out = refill(target, {"x": torch.arange(4.0), "alpha": 2.0})
    # Same object, same version counter: by identity, the refilled call looks exactly like the one before it.
    assert out["x"] is x and torch.equal(x, torch.arange(4.0)) and x._version == version


def test_an_expanded_input_that_cannot_be_written_in_place_is_replaced():
    target = {"b": torch.zeros(1, 3).expand(2, 3)}
    fresh = {"b": torch.ones(1, 3).expand(2, 3)}
    out = refill(target, fresh)
    assert out["b"] is fresh["b"] and torch.equal(out["b"], torch.ones(2, 3))


class _Sent:
    def __init__(self) -> None:
        self.messages: list = []

    def send(self, message) -> None:
        self.messages.append(message)


def _session() -> tuple[_Session, _Sent]:
    session, sent = _Session.__new__(_Session), _Sent()
    session.channel = sent
    return session, sent


def test_a_case_whose_bookkeeping_runs_out_of_memory_is_out_of_memory_not_a_crash():
    # Found on the H200 (2026-11-27): a copy of a KernelBench problem's 6 GiB input, made beside other evaluations,
    # ran out of memory and the worker died CRASHED, so the orchestrator never ran it again alone.
    for exc in (torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 6.00 GiB"),
                CudaShareError("cuMemCreate failed with CUDA error 2 (out of memory)"), MemoryError()):
        session, sent = _session()
        assert session._harness_failed(7, exc, "keeping a copy of the case's inputs") is False
        (failed,) = sent.messages
        assert isinstance(failed, protocol.CaseFailed) and (failed.index, failed.status) == (7, "OUT_OF_MEMORY")
        assert failed.error.startswith("keeping a copy of the case's inputs: ")


def test_any_other_fault_of_the_bookkeeping_is_raised():
    for exc in (ValueError("a bug of kbx's"), CudaShareError("cuMemMap failed with CUDA error 1")):
        session, sent = _session()
        with pytest.raises(type(exc)):
            session._harness_failed(7, exc, "handing the outputs over")
        assert sent.messages == []


def test_on_the_cpu_an_output_element_a_kernel_never_writes_is_nan_whatever_the_allocator_gave(suite, cpu_evaluator):
    # relu's wrong/stores_positives_only writes the positive outputs only; the zeros are left to torch.empty.
    from kbx.candidates.source import Candidate

    task = suite["relu"]
    path = task.solution_file.parent / "wrong" / "stores_positives_only.py"
    evaluation = cpu_evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))
    assert evaluation.status.value == "MISMATCH"
    assert "got nan, expected 0" in evaluation.message
