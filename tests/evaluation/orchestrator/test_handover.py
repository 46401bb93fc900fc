"""The orchestrator's inbox of descriptors a candidate worker hands over beside its reports."""

import os
import socket

from kbx.evaluation.orchestrator.handover import MAX_DESCRIPTORS, Inbox


def _send(inbox: Inbox, count: int) -> list[int]:
    fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(count)]
    with socket.socket(fileno=os.dup(inbox.worker_end)) as end:
        socket.send_fds(end, [b"d"], fds)
    for fd in fds:
        os.close(fd)
    return fds


def test_take_returns_what_was_sent_since_the_last_take_in_order_and_never_blocks():
    inbox = Inbox()
    try:
        assert inbox.take() == []
        _send(inbox, 2)
        _send(inbox, 1)
        taken = inbox.take()
        assert len(taken) == 3 and all(os.fstat(fd) for fd in taken)
        assert inbox.take() == []
        for fd in taken:
            os.close(fd)
    finally:
        inbox.close()


def test_a_flood_is_capped_and_the_inbox_closes_cleanly_with_descriptors_still_queued():
    inbox = Inbox()
    for _ in range(MAX_DESCRIPTORS // 8 + 2):
        _send(inbox, 8)
    taken = inbox.take()
    assert len(taken) <= MAX_DESCRIPTORS
    for fd in taken:
        os.close(fd)
    _send(inbox, 8)
    inbox.close()
    assert inbox.take() == []
