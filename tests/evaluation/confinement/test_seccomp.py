"""The seccomp filter as a program: run through a small classic-BPF interpreter here, for both architectures, it
answers each system call as the module says. (tests/evaluation/confinement/test_boundary.py checks the installed
filter from inside a confined process.)"""

from __future__ import annotations

import errno
import socket

import pytest

from kbx.evaluation.confinement import libc, seccomp

ALLOW = "allow"


def run(program: list[tuple[int, int, int, int]], arch: int, nr: int, arg0: int = 0) -> str | int:
    """ALLOW or the errno the filter returns for system call `nr` with first argument `arg0`."""
    data = {0: nr, 4: arch, 16: arg0}
    pc, accumulator = 0, 0
    while True:
        code, jt, jf, k = program[pc]
        if code == 0x20:  # BPF_LD | BPF_W | BPF_ABS
            accumulator = data[k]
        elif code in (0x15, 0x35, 0x45):  # JEQ, JGE, JSET
            taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: bool(accumulator & k)}[code]
            pc += jt if taken else jf
        elif code == 0x06:  # RET
            return ALLOW if k == 0x7FFF0000 else (k & 0xFFFF if k >> 16 == 0x5 else f"other {k:#x}")
        else:
            raise AssertionError(f"unexpected instruction {code:#x}")
        pc += 1


ARCHES = {"x86_64": (0xC000003E, {"read": 0, "ptrace": 101, "mount": 165, "unshare": 272, "clone": 56,
                                  "clone3": 435, "socket": 41, "prctl": 157, "iopl": 172}),
          "aarch64": (0xC00000B7, {"read": 63, "ptrace": 117, "mount": 40, "unshare": 97, "clone": 220,
                                   "clone3": 435, "socket": 198, "prctl": 167})}


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_the_filter_answers_each_call_as_documented(arch):
    audit, nr = ARCHES[arch]
    program = seccomp.program(arch)

    def answer(name: str, arg0: int = 0) -> str | int:
        return run(program, audit, nr[name], arg0)

    assert answer("read") == ALLOW
    assert answer("ptrace") == answer("mount") == answer("unshare") == errno.EPERM
    assert answer("clone3") == errno.ENOSYS
    assert answer("clone", 0x11) == ALLOW  # a plain fork's flags (SIGCHLD)
    assert answer("clone", libc.CLONE_NEWNET | 0x11) == errno.EPERM
    assert answer("socket", socket.AF_UNIX) == ALLOW
    assert answer("socket", socket.AF_INET) == answer("socket", socket.AF_NETLINK) == errno.EPERM
    assert answer("prctl", libc.PR_SET_DUMPABLE) == ALLOW
    assert answer("prctl", libc.PR_SET_PDEATHSIG) == errno.EPERM


def test_another_abi_is_denied():
    audit, nr = ARCHES["x86_64"]
    program = seccomp.program("x86_64")
    assert run(program, 0x40000003, nr["read"]) == errno.EPERM  # i386's audit arch
    assert run(program, audit, 0x40000000 | nr["read"]) == errno.EPERM  # x32
    assert run(program, audit, nr["iopl"]) == errno.EPERM


def test_every_denied_call_of_this_machine_is_denied():
    arch = libc.machine()
    if arch not in ARCHES:
        pytest.skip(f"no filter for {arch}")
    audit = ARCHES[arch][0]
    program = seccomp.program(arch)
    denied, _ = seccomp._numbers(arch)
    assert set(denied) == set(seccomp.denied_syscalls())
    assert {name: run(program, audit, number) for name, number in denied.items()} == dict.fromkeys(
        denied, errno.EPERM)


def test_an_unknown_architecture_has_no_filter():
    with pytest.raises(OSError, match="no seccomp filter for riscv64"):
        seccomp.program("riscv64")
