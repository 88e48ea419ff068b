"""Drop a process's right to change any file or open a network connection: Linux's Landlock LSM (kernel 5.13+).

Unprivileged (works as root and as any user) and permanent for the process and its children. Reading stays
allowed; files opened before (stdout, stderr) stay writable. The three system calls are reached through ctypes:
the standard library has no binding and the PyPI ones are pre-release.
"""

from __future__ import annotations

import ctypes
import os

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same numbers on every Linux architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# LANDLOCK_ACCESS_FS_* rights that change the file system, with the ABI version that introduced each
WRITE_FILE = 1 << 1
_WRITE_RIGHTS = [
    (1, WRITE_FILE), (1, 1 << 4), (1, 1 << 5), (1, 1 << 6), (1, 1 << 7), (1, 1 << 8), (1, 1 << 9), (1, 1 << 10),
    (1, 1 << 11), (1, 1 << 12),  # remove dir/file, make char/dir/reg/sock/fifo/block/sym
    (2, 1 << 13),  # REFER: link or rename across directories
    (3, 1 << 14),  # TRUNCATE
]
TRUNCATE = 1 << 14
_NET_RIGHTS = 1 | 2  # LANDLOCK_ACCESS_NET_BIND_TCP | CONNECT_TCP (ABI 4)
_SCOPES = 1 | 2  # LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | SIGNAL (ABI 6)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 where Landlock is missing or disabled."""
    try:
        version = _libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):  # not Linux
        return 0
    return max(version, 0)


def forbid_writes(writable: tuple[str, ...] = (os.devnull,)) -> int:
    """Forbid this process every file-system change (but writes to the `writable` files) and TCP.

    Returns the ABI version applied, or 0 when the kernel has no Landlock (nothing was restricted).
    """
    abi = abi_version()
    if abi < 1:
        return 0
    fs = 0
    for since, right in _WRITE_RIGHTS:
        fs |= right if abi >= since else 0
    attr = _RulesetAttr(fs, _NET_RIGHTS if abi >= 4 else 0, _SCOPES if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24  # the struct grew with the ABI; pass the part this kernel knows
    libc = _libc()
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        for path in writable:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneathAttr(WRITE_FILE | (TRUNCATE if abi >= 3 else 0), fd)
                if libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}: {os.strerror(ctypes.get_errno())}")
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0:  # required before restricting an unprivileged process
            raise OSError(ctypes.get_errno(), f"prctl(NO_NEW_PRIVS): {os.strerror(ctypes.get_errno())}")
        if libc.syscall(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) < 0:
            raise OSError(ctypes.get_errno(), f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(ruleset)
    return abi
