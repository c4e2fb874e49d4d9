#!/usr/bin/env python3
"""Build the seccomp filter of every sandboxed run with libseccomp; write its BPF to stdout.

    python3 -I -S seccomp.py '{"deny": [...], "enosys": [...], "clone_flags": N,
                               "deny_when": [{"syscall": S, "arg": K, "op": "eq" | "masked_eq",
                                              "value": V, "mask": M}, ...],
                               "numbers": {name: N, ...}}'

The harness runs this once per eval (outside any sandbox) and hands the program
to bubblewrap (`--seccomp FD`), which loads it into the run just before the
run's first command starts; every process of the run inherits it. Everything
is allowed but:

- each syscall in "deny" fails with EPERM;
- each syscall in "enosys" fails with ENOSYS (clone3, whose flags sit in
  memory a filter cannot read: libc then falls back to clone);
- clone fails with EPERM when any bit of "clone_flags" is set (new
  namespaces), and succeeds otherwise (threads, fork);
- each rule of "deny_when" makes its syscall fail with EPERM when argument K
  (from 0) is V ("eq"), or when argument K & M is V ("masked_eq"); a syscall's
  rules are alternatives (any one denies), and its other calls are allowed;
- a syscall of another architecture (32-bit `int 0x80` on x86_64) kills the
  process (libseccomp's default for a foreign architecture).

A name this kernel's architecture does not have is skipped; a name libseccomp
is too old to know is looked up in "numbers" on x86_64 and arm64, where new
syscalls share one table of numbers. The BPF comes from
libseccomp itself (seccomp_export_bpf), the library systemd, Docker and
bubblewrap's own tests use, so no filter is assembled by hand. Exit 2 when
libseccomp cannot be loaded, with the reason on stderr.
"""
import ctypes
import ctypes.util
import errno
import json
import sys

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_EQ = 4
SCMP_CMP_MASKED_EQ = 7
# AUDIT_ARCH_X86_64 and AUDIT_ARCH_AARCH64: the architectures whose numbers for new syscalls are the common table's.
COMMON_TABLE = (0xC000003E, 0xC00000B7)


def act_errno(code):
    return 0x00050000 | (code & 0xFFFF)


class ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


def main():
    spec = json.loads(sys.argv[1])
    # The soname first, as the dynamic loader finds it: find_library runs `ldconfig -p` (a
    # process, ~40 ms of every eval), needed only where the library has another name.
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so", use_errno=True)
        except OSError as error:
            sys.stderr.write("libseccomp is not installed (%s)\n" % error)
            sys.exit(2)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(ArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_arch_native.restype = ctypes.c_uint32

    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        sys.stderr.write("seccomp_init failed\n")
        sys.exit(2)

    def number(syscall):
        nr = lib.seccomp_syscall_resolve_name(syscall.encode())
        if nr >= 0:
            return nr
        # __NR_SCMP_ERROR (-1) is a name libseccomp does not know; other negatives are syscalls this architecture lacks.
        if nr == -1 and syscall in spec.get("numbers", {}) and lib.seccomp_arch_native() in COMMON_TABLE:
            return spec["numbers"][syscall]
        return None

    def add(action, syscall, comparisons=()):
        nr = number(syscall)
        if nr is None:
            return
        array = (ArgCmp * max(1, len(comparisons)))(*comparisons)
        rc = lib.seccomp_rule_add_array(ctx, action, nr, len(comparisons), array)
        if rc < 0:
            raise SystemExit("seccomp_rule_add(%s) failed: %s" % (syscall, errno.errorcode.get(-rc, rc)))

    for syscall in spec["deny"]:
        add(act_errno(errno.EPERM), syscall)
    for syscall in spec["enosys"]:
        add(act_errno(errno.ENOSYS), syscall)
    flags = spec["clone_flags"]
    bit = 1
    while bit <= flags:
        if flags & bit:
            # clone's flags are its first argument on x86_64 and arm64 (the one arg order libseccomp checks here).
            add(act_errno(errno.EPERM), "clone", [ArgCmp(0, SCMP_CMP_MASKED_EQ, bit, bit)])
        bit <<= 1
    for rule in spec.get("deny_when", []):
        if rule["op"] == "eq":
            comparison = ArgCmp(rule["arg"], SCMP_CMP_EQ, rule["value"], 0)
        elif rule["op"] == "masked_eq":
            comparison = ArgCmp(rule["arg"], SCMP_CMP_MASKED_EQ, rule["mask"], rule["value"])
        else:
            raise SystemExit("unknown comparison %r in deny_when" % rule["op"])
        add(act_errno(errno.EPERM), rule["syscall"], [comparison])
    sys.stdout.flush()
    rc = lib.seccomp_export_bpf(ctx, sys.stdout.fileno())
    lib.seccomp_release(ctx)
    if rc < 0:
        raise SystemExit("seccomp_export_bpf failed: %s" % errno.errorcode.get(-rc, rc))


if __name__ == "__main__":
    main()
