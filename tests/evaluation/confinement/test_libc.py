"""The few system calls confinement makes directly: their numbers per architecture, errors as OSError."""

from __future__ import annotations

import errno
import platform

import pytest

from kbx.evaluation.confinement import libc


def test_architectures_are_named_as_the_kernel_names_them(monkeypatch):
    monkeypatch.setattr(platform, "machine", lambda: "arm64")
    assert libc.machine() == "aarch64"
    monkeypatch.setattr(platform, "machine", lambda: "amd64")
    assert libc.machine() == "x86_64"


@pytest.mark.parametrize(("arch", "expected"), [("x86_64", (155, 317, 126)), ("aarch64", (41, 277, 91))])
def test_system_call_numbers_follow_the_architecture(monkeypatch, arch, expected):
    monkeypatch.setattr(libc, "machine", lambda: arch)
    assert tuple(libc.syscall_number(n) for n in ("pivot_root", "seccomp", "capset")) == expected


def test_an_unknown_architecture_is_an_error(monkeypatch):
    monkeypatch.setattr(libc, "machine", lambda: "riscv64")
    with pytest.raises(OSError, match="no system call numbers for riscv64"):
        libc.syscall_number("seccomp")


def test_a_failed_call_is_an_oserror_with_its_errno():
    """umount2 of a path that does not exist fails: an OSError naming the call and the path, never silently."""
    with pytest.raises(OSError) as raised:
        libc.umount2("/nonexistent-kbx-mount-point", 0)
    assert raised.value.errno in (errno.EINVAL, errno.EPERM, errno.ENOENT)
    assert "umount /nonexistent-kbx-mount-point" in str(raised.value)


def test_namespace_flags_cover_every_new_namespace():
    for flag in (libc.CLONE_NEWNS, libc.CLONE_NEWPID, libc.CLONE_NEWNET, libc.CLONE_NEWUSER, libc.CLONE_NEWIPC):
        assert libc.NAMESPACE_FLAGS & flag
    assert not libc.NAMESPACE_FLAGS & 0x11  # SIGCHLD, a plain fork's flags
