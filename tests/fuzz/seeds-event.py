#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the seed corpus of fuzz-event: one record of each kind of
# bpf/record.h, laid out as the BPF programs send them (the sizes are held
# by the headers' _Static_asserts; test-records checks them against BTF).
#   tests/fuzz/seeds-event.py tests/fuzz/corpus-event
import os
import struct
import sys

SLOTS, ARGS, NAME, COMM, REASON, WIRE = 33, 6, 64, 16, 64, 8
(REC_CALL, REC_VFS_CALL, REC_SMB2_REQ, REC_SMB_EVENT, REC_BLOCK, REC_SMBD_REQ, REC_SMBD_EXIT,
 REC_SMBD_BREAK) = range(1, 9)
RF_HAS_RET, RF_KSTACK_ID, RF_HAS_DEV, RF_HAS_NAME, RF_SMB2_IDS = 1, 2, 4, 8, 16
KERNEL = [0xffffffffc0a01000, 0xffffffff81100000 + 0x12f, 0xffffffff81100800 + 0x1a0,
          0xffffffff81102000 + 0x40]
END = 5000000000


def head(kind, func_id, flags, end=END, lat=45210000, comm=b"rm"):
    return struct.pack("<IIQQIIII16s", kind, func_id, end, lat, 48782, 48783, 1000, flags, comm)


def stacks(kernel=(), user=()):
    k = list(kernel) + [0] * (SLOTS - len(kernel))
    u = list(user) + [0] * (SLOTS - len(user))
    return struct.pack("<ii", 8 * len(kernel), 8 * len(user)) + struct.pack("<%dQ" % SLOTS, *k) + \
        struct.pack("<%dQ" % SLOTS, *u)


def call(kind, func_id, flags, ret, args=(), kernel=(), user=(), end=END):
    a = list(args) + [0] * (ARGS - len(args))
    return head(kind, func_id, flags, end) + struct.pack("<Q%dQ" % ARGS, ret, *a) + stacks(kernel, user)


def ids(mid=77, session=0x2c00000045, cmd=5, status=0, tree=5):
    return struct.pack("<QQQIIIHHHH4x", mid, session, 0, tree, status, 0, cmd, 1, 10, 0)


def smb2(kind, func_id, event=0):
    return head(kind, func_id, RF_HAS_NAME) + ids(status=0xC0000022) + struct.pack("<QIHH4i", 3, 0, 10, event, 0, 3, 12, 0) + \
        struct.pack("<3Q", 12000, 20300000, 100000) + b"a.txt".ljust(NAME, b"\0") + \
        b"srv.example.com".ljust(NAME, b"\0")


def main():
    out = sys.argv[1]
    seeds = {
        # a user function that failed, with its user stack
        "call": call(REC_CALL, 0, RF_HAS_RET, 0xfffffffe, (1, 2), user=(0x401136, 0x7f0000001234)),
        # a garbled end time near INT64_MAX (found once by this fuzzer)
        "end-ns-overflow": call(REC_CALL, 0, RF_HAS_RET, 0, end=0x7300000000000000),
        # a cifs unlink: share, file, kernel stack and the SMB2 requests it waited on
        "vfs-call": call(REC_VFS_CALL, 1, RF_HAS_RET | RF_HAS_DEV | RF_HAS_NAME, 0xfffffffe,
                         (0xffff888001234500, 0xffff888005678900), kernel=KERNEL) +
        struct.pack("<II", 55, 0) + b"a.txt".ljust(NAME, b"\0") +
        struct.pack("<IIQ3Q", 3, 0, 60700000, 36000, 60364000, 300000) +
        b"".join(struct.pack("<IHH", 20412 - i, 5 + i, 0) for i in range(WIRE)),
        "smb2-request": smb2(REC_SMB2_REQ, 2),
        "smb-event": smb2(REC_SMB_EVENT, 2, event=5),
        "block": head(REC_BLOCK, 5, 0) + struct.pack("<QQII", 2048, 250000, 65536, 1) +
        b"nvme0n1".ljust(32, b"\0"),
        "smbd-request": call(REC_SMBD_REQ, 3, RF_HAS_RET | RF_SMB2_IDS, 0xC0000034) + ids(),
        "smbd-exit": head(REC_SMBD_EXIT, 4, 0, comm=b"smbd") +
        struct.pack("<iIIIIiQ", 9, 0xC0000017, 4000, 2, 21, 12, 300000) +
        struct.pack("<HH4s24x", 2, 50376, bytes([192, 0, 2, 7])) +
        b"NT_STATUS_NO_MEMORY".ljust(REASON, b"\0") + b"smb2_server.c:5054".ljust(REASON, b"\0") +
        stacks(user=(0x401136,)),
        "smbd-break": head(REC_SMBD_BREAK, 4, 0, comm=b"smbd") +
        struct.pack("<IIQQII", 7, 1, 0x0123456789abcdef, 0xfedcba9876543210, 0, 0),
    }
    os.makedirs(out, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)


main()
