"""The GPU gate: correctness work shares a GPU, a performance stage has it alone, and a waiting stage goes first."""

from __future__ import annotations

import threading
import time

import pytest

from kbx.evaluation.orchestrator.gpu_gate import GpuGate, gpu_gate


def in_thread(action) -> tuple[threading.Thread, threading.Event]:
    done = threading.Event()

    def run() -> None:
        action()
        done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, done


def test_shared_holders_coexist_and_the_exclusive_side_waits_for_all_of_them():
    gate = GpuGate()
    gate.acquire_shared()
    gate.acquire_shared()
    thread, got = in_thread(gate.acquire_exclusive)
    assert not got.wait(0.2)
    gate.release_shared()
    assert not got.wait(0.2)
    gate.release_shared()
    assert got.wait(5)
    assert gate.exclusive and gate.shared_holders == 0
    gate.release_exclusive()
    thread.join(5)


def test_new_cases_start_while_a_stage_waits_until_its_patience_runs_out():
    gate = GpuGate(patience_s=0.5)
    gate.acquire_shared()
    _, exclusive = in_thread(gate.acquire_exclusive)
    while not gate._exclusive_waiting:  # the request is queued
        time.sleep(0.01)
    gate.acquire_shared()  # within the patience: the GPU is in use by cases anyway
    time.sleep(0.6)
    _, late = in_thread(gate.acquire_shared)
    assert not late.wait(0.2)  # past it, a new evaluation's cases wait behind the queued stage
    gate.release_shared()
    gate.release_shared()
    assert exclusive.wait(5) and not late.is_set()
    gate.release_exclusive()
    assert late.wait(5)


def test_a_waiting_exclusive_request_keeps_new_shared_holders_out():
    gate = GpuGate(patience_s=0.0)
    gate.acquire_shared()
    _, exclusive = in_thread(gate.acquire_exclusive)
    while not gate._exclusive_waiting:  # the request is queued
        time.sleep(0.01)
    _, shared = in_thread(gate.acquire_shared)
    assert not shared.wait(0.2)  # a new evaluation's cases wait behind the queued stage
    gate.release_shared()
    assert exclusive.wait(5) and not shared.is_set()
    gate.release_exclusive()
    assert shared.wait(5)
    assert gate.shared_holders == 1 and not gate.exclusive


def test_exclusive_holders_follow_one_another():
    gate = GpuGate()
    gate.acquire_exclusive()
    _, second = in_thread(gate.acquire_exclusive)
    assert not second.wait(0.2)
    gate.release_exclusive()
    assert second.wait(5)
    gate.release_exclusive()


def test_acquire_reports_how_long_it_waited():
    gate = GpuGate()
    gate.acquire_exclusive()
    timer = threading.Timer(0.3, gate.release_exclusive)
    timer.start()
    assert gate.acquire_shared() >= 0.25
    timer.join()


def test_releasing_what_is_not_held_is_a_harness_bug():
    gate = GpuGate()
    with pytest.raises(RuntimeError):
        gate.release_shared()
    with pytest.raises(RuntimeError):
        gate.release_exclusive()


def test_one_gate_per_gpu():
    assert gpu_gate("0") is gpu_gate("0")
    assert gpu_gate("0") is not gpu_gate("1")
