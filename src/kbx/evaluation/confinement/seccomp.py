"""The candidate worker's seccomp filter: a classic-BPF program, built here and installed for every thread.

Denied with EPERM: looking into or controlling other processes (ptrace, process_vm_readv/writev, kcmp,
pidfd_getfd), kernel facilities a kernel never needs (perf_event_open, bpf, keyctl and the key calls, userfaultfd,
io_uring, which runs system calls outside this filter, module loading, kexec, reboot, swap, acct, syslog,
quotactl, fanotify, ioperm/iopl, handles to files by inode), any change of mounts, root or namespaces (mount and
the new mount API, umount2, pivot_root, chroot, unshare, setns, and `clone` with a namespace flag), sockets of any
family but AF_UNIX, and resetting the parent-death signal that ties the worker's life to its warden's. clone3 is
answered ENOSYS (its flags sit in memory a filter cannot read), so libc falls back to clone, which is checked.
System calls of another ABI (x32, i386 on x86_64) are denied.
"""

from __future__ import annotations

import ctypes
import errno
import socket
import struct

from kbx.evaluation.confinement import libc

_DENIED = {
    # name: (x86_64, aarch64)
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "kcmp": (312, 272),
    "pidfd_getfd": (438, 438),
    "perf_event_open": (298, 241),
    "bpf": (321, 280),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "reboot": (169, 142),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "acct": (163, 89),
    "syslog": (103, 116),
    "quotactl": (179, 60),
    "fanotify_init": (300, 262),
    "lookup_dcookie": (212, 18),
    "vhangup": (153, 58),
    "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "unshare": (272, 97),
    "setns": (308, 268),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
}
_X86_ONLY = {"iopl": 172, "ioperm": 173}
_CHECKED = {"clone": (56, 220), "clone3": (435, 435), "socket": (41, 198), "prctl": (157, 167)}
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_BIT = 0x40000000

# classic BPF
_LD_W_ABS = 0x20
_JEQ, _JGE, _JSET = 0x15, 0x35, 0x45
_RET = 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_NR, _ARCH, _ARG0 = 0, 4, 16

SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1


def denied_syscalls() -> list[str]:
    """The names of the system calls denied outright on this machine (for the row's record and the docs)."""
    names = sorted(_DENIED)
    if libc.machine() == "x86_64":
        names += sorted(_X86_ONLY)
    return names


def _numbers(arch: str) -> tuple[dict[str, int], dict[str, int]]:
    column = 0 if arch == "x86_64" else 1
    denied = {name: pair[column] for name, pair in _DENIED.items()}
    if arch == "x86_64":
        denied.update(_X86_ONLY)
    return denied, {name: pair[column] for name, pair in _CHECKED.items()}


def program(arch: str | None = None) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions for `arch` (default: this machine's)."""
    arch = arch or libc.machine()
    if arch not in _AUDIT_ARCH:
        raise OSError(f"kbx confinement has no seccomp filter for {arch}")
    denied, checked = _numbers(arch)
    code: list[tuple[int, int | str, int | str, int]] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ, 0, "deny", _AUDIT_ARCH[arch]),
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if arch == "x86_64":
        code.append((_JGE, "deny", 0, _X32_BIT))
    code += [
        (_JEQ, "enosys", 0, checked["clone3"]),
        (_JEQ, "clone", 0, checked["clone"]),
        (_JEQ, "socket", 0, checked["socket"]),
        (_JEQ, "prctl", 0, checked["prctl"]),
    ]
    code += [(_JEQ, "deny", 0, number) for number in sorted(denied.values())]
    code.append((_RET, 0, 0, _ALLOW))
    labels = {
        "clone": [(_LD_W_ABS, 0, 0, _ARG0), (_JSET, "deny", "allow", libc.NAMESPACE_FLAGS)],
        "socket": [(_LD_W_ABS, 0, 0, _ARG0), (_JEQ, "allow", "deny", socket.AF_UNIX)],
        "prctl": [(_LD_W_ABS, 0, 0, _ARG0), (_JEQ, "deny", "allow", libc.PR_SET_PDEATHSIG)],
        "allow": [(_RET, 0, 0, _ALLOW)],
        "deny": [(_RET, 0, 0, _ERRNO | errno.EPERM)],
        "enosys": [(_RET, 0, 0, _ERRNO | errno.ENOSYS)],
    }
    where: dict[str, int] = {}
    for label, block in labels.items():
        where[label] = len(code)
        code += block
    return [_resolve(i, instruction, where) for i, instruction in enumerate(code)]


def _resolve(
    index: int, instruction: tuple[int, int | str, int | str, int], where: dict[str, int]
) -> tuple[int, int, int, int]:
    op, jt, jf, k = instruction

    def offset(target: int | str) -> int:
        if isinstance(target, int):
            return target
        jump = where[target] - index - 1
        assert 0 <= jump < 256, "a BPF jump reaches at most 255 instructions ahead"
        return jump

    return op, offset(jt), offset(jf), k


def install() -> None:
    """Set no_new_privs and install the filter on every thread of this process (irrevocable)."""
    instructions = program()
    raw = b"".join(struct.pack("=HBBI", *instruction) for instruction in instructions)
    buffer = ctypes.create_string_buffer(raw, len(raw))

    class _Program(ctypes.Structure):
        _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))

    fprog = _Program(len(instructions), ctypes.cast(buffer, ctypes.c_void_p))
    libc.prctl(libc.PR_SET_NO_NEW_PRIVS, 1)
    libc.seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, ctypes.byref(fprog))
