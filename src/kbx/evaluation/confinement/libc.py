"""The few Linux system calls confinement needs, through ctypes into libc (standard library only)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
from functools import cache
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWTIME = 0x00000080
NAMESPACE_FLAGS = (
    CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP
    | CLONE_NEWTIME
)
"""Every clone flag that makes a new namespace: the seccomp filter refuses `clone` with any of them."""

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
MNT_DETACH = 0x2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4

_SYSCALLS = {
    # name: (x86_64, aarch64)
    "pivot_root": (155, 41),
    "seccomp": (317, 277),
    "capset": (126, 91),
}


@cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def machine() -> str:
    """`x86_64` or `aarch64`, the architectures whose system call numbers kbx knows."""
    name = platform.machine()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(name, name)


def syscall_number(name: str) -> int:
    """This machine's number of a system call kbx calls directly."""
    x86_64, aarch64 = _SYSCALLS[name]
    arch = machine()
    if arch == "x86_64":
        return x86_64
    if arch == "aarch64":
        return aarch64
    raise OSError(f"kbx confinement knows no system call numbers for {arch}")


def _check(result: int, what: str) -> int:
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def unshare(flags: int) -> None:
    _check(_libc().unshare(ctypes.c_int(flags)), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(value: str | None) -> bytes | None:
        return None if value is None else os.fsencode(value)

    result = _libc().mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data))
    _check(result, f"mount {source or fstype} on {target}")


def umount2(target: str, flags: int) -> None:
    _check(_libc().umount2(os.fsencode(target), ctypes.c_int(flags)), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    number = syscall_number("pivot_root")
    _check(_libc().syscall(ctypes.c_long(number), os.fsencode(new_root), os.fsencode(put_old)), "pivot_root")


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    values = (ctypes.c_ulong(v) for v in (arg2, arg3, arg4, arg5))
    return _check(_libc().prctl(ctypes.c_int(option), *values), f"prctl({option})")


def seccomp(operation: int, flags: int, program: Any) -> None:
    """`program`: `ctypes.byref` of a `struct sock_fprog`."""
    number = syscall_number("seccomp")
    result = _libc().syscall(ctypes.c_long(number), ctypes.c_uint(operation), ctypes.c_uint(flags), program)
    _check(result, "seccomp")


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32))


def drop_capabilities() -> None:
    """Empty this process's effective, permitted, inheritable, ambient and bounding capability sets."""
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    cap = 0
    while cap < 64:
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except OSError:
            break  # past the last capability this kernel knows
        cap += 1
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    number = syscall_number("capset")
    _check(_libc().syscall(ctypes.c_long(number), ctypes.byref(header), ctypes.byref(data)), "capset")


def set_undumpable() -> None:
    """PR_SET_DUMPABLE 0: no process of another UID, nor one without CAP_SYS_PTRACE, may ptrace this one or read
    its /proc/<pid>/mem, environ or maps, and it leaves no core dump."""
    prctl(PR_SET_DUMPABLE, 0)
