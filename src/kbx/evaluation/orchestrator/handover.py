"""The orchestrator's end of the socket on which a candidate worker hands over the CUDA descriptors of its large
outputs (`kbx.evaluation.cuda_share`), each batch sent just before the report whose saved file names them.

The candidate shares the worker's process and may send anything here too; nothing received is trusted. A batch is
taken when its report is judged and goes to the trusted worker, which checks it against the file's `shared`
markers (one descriptor each, in order) and refuses a mismatch; what is left over is closed.
"""

from __future__ import annotations

import contextlib
import os
import socket

MAX_DESCRIPTORS = 64
"""Descriptors taken for one report; the kernel closes any beyond what a receive makes room for."""


class Inbox:
    """A socket pair: the worker's end is inherited by the worker, this end is read without blocking."""

    def __init__(self) -> None:
        self._ours, self._theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._ours.setblocking(False)

    @property
    def worker_end(self) -> int:
        """The descriptor the worker inherits; `started` closes this process's copy once it has."""
        return self._theirs.fileno()

    def started(self) -> None:
        self._theirs.close()

    def take(self) -> list[int]:
        """Every descriptor received since the last take, in order (at most `MAX_DESCRIPTORS`); the caller closes
        them."""
        fds: list[int] = []
        while len(fds) < MAX_DESCRIPTORS:
            try:
                message, received, _, _ = socket.recv_fds(self._ours, 16, MAX_DESCRIPTORS - len(fds))
            except OSError:  # nothing waiting (BlockingIOError), or the socket is gone
                break
            fds += received
            if not message and not received:  # the worker's end is closed
                break
        return fds

    def close(self) -> None:
        close_all(self.take())
        self._ours.close()
        self._theirs.close()


def close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
