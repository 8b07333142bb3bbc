#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the trace.dat files of tests/data that no kernel here records:
event formats and records seen in public files from other machines, put
in a minimal trace.dat v6 (see trace-cmd.dat.v6(5)) so that trace-cmd
report is their oracle.

    tests/data/mkodd.py [OUTDIR]      (default: this script's folder)

mk-binder.dat: 32-bit ARM (long 4), binder's binder_return and
  binder_command, whose print fmt holds the kernel's ARRAY_SIZE() (a
  sizeof of an expression, a struct with a bit-field), which libtraceevent
  does not parse: trace-cmd prints their records raw.  Beside them
  binder_transaction and sched_switch, which it parses.
mk-strings.dat: arm64 (long 8), EAS sched_load_se / sched_load_cfs_rq,
  whose __data_loc char[] path may hold no NUL within its length (the
  6-byte "(null)" of ARM-software/lisa tests/assets/sched_load/trace.dat):
  libtraceevent prints such a string to its NUL, in the padding of the
  record or past the record, in the page.

mk-plugfn.dat: x86-64, print fmts that call functions libtraceevent's
  jbd2 plugin registers: ext4_sync_file as Linux 2.6.33 printed it
  (jbd2_dev_to_name(), in the ext4 system, which no plugin is named
  for) and jbd2_run_stats as 6.18 prints it (jiffies_to_msecs()).
  ktrace loads a plugin when a format names one of its functions.

The binder and sched_load format texts are those of ARM-software/lisa's
files, ext4_sync_file's that of Linux 2.6.33's include/trace/events/ext4.h,
jbd2_run_stats's this host's (see PROVENANCE.md); the records are made up.  The output is the same on
every run.
"""
import os
import struct
import sys

HEADER_EVENT = ("# compressed entry header\n\ttype_len    :    5 bits\n"
                "\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
                "\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                "\tdata max type_len  == 28\n")


def header_page(long_size):
    return ("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
            "\tfield: local_t commit;\toffset:8;\tsize:%d;\tsigned:1;\n"
            "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
            "\tfield: char data;\toffset:%d;\tsize:%d;\tsigned:0;\n"
            % (long_size, 8 + long_size, 4096 - 8 - long_size))


COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")


def fmt(name, eid, fields, printfmt):
    return ("name: %s\nID: %d\nformat:\n%s%s\nprint fmt: %s\n"
            % (name, eid, COMMON, fields, printfmt))


def array_size_fmt(what):
    return ('"cmd=0x%%x %%s", REC->cmd, (((REC->cmd) >> 0) & ((1 << 8)-1)) < '
            '(sizeof(%s) / sizeof((%s)[0]) + (sizeof(struct { int:-!!('
            '__builtin_types_compatible_p(typeof((%s)), typeof(&(%s)[0]))); }))) ? '
            '%s[(((REC->cmd) >> 0) & ((1 << 8)-1))] : "unknown"'
            % ((what + "_strings",) * 5))


CMD_FIELD = "\tfield:uint32_t cmd;\toffset:8;\tsize:4;\tsigned:0;\n"

BINDER = [
    fmt("binder_return", 372, CMD_FIELD, array_size_fmt("binder_return")),
    fmt("binder_command", 373, CMD_FIELD, array_size_fmt("binder_command")),
    fmt("binder_transaction", 383,
        "".join("\tfield:%s;\toffset:%d;\tsize:4;\tsigned:%d;\n" % (f, 8 + 4 * i, s)
                for i, (f, s) in enumerate([
                    ("int debug_id", 1), ("int target_node", 1), ("int to_proc", 1),
                    ("int to_thread", 1), ("int reply", 1), ("unsigned int code", 0),
                    ("unsigned int flags", 0)])),
        '"transaction=%d dest_node=%d dest_proc=%d dest_thread=%d reply=%d '
        'flags=0x%x code=0x%x", REC->debug_id, REC->target_node, REC->to_proc, '
        'REC->to_thread, REC->reply, REC->flags, REC->code'),
]

SCHED_SWITCH32 = fmt(
    "sched_switch", 68,
    "\tfield:char prev_comm[32];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:4;\tsigned:1;\n"
    "\tfield:char next_comm[32];\toffset:36;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:52;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:56;\tsize:4;\tsigned:1;\n",
    '"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s '
    'next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, '
    'REC->prev_state & (1024-1) ? __print_flags(REC->prev_state & (1024-1), "|", '
    '{ 1, "S"} , { 2, "D" }, { 4, "T" }, { 8, "t" }, { 16, "Z" }, { 32, "X" }, '
    '{ 64, "x" }, { 128, "K" }, { 256, "W" }, { 512, "P" }) : "R", '
    'REC->prev_state & 1024 ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio')

SCHED_LOAD = [
    fmt("sched_load_se", 75,
        "\tfield:int cpu;\toffset:8;\tsize:4;\tsigned:1;\n"
        "\tfield:__data_loc char[] path;\toffset:12;\tsize:4;\tsigned:0;\n"
        "\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n"
        "\tfield:pid_t pid;\toffset:32;\tsize:4;\tsigned:1;\n"
        "\tfield:unsigned long load;\toffset:40;\tsize:8;\tsigned:0;\n"
        "\tfield:unsigned long util;\toffset:48;\tsize:8;\tsigned:0;\n",
        '"cpu=%d path=%s comm=%s pid=%d load=%lu util=%lu", REC->cpu, '
        '__get_str(path), REC->comm, REC->pid, REC->load, REC->util'),
    fmt("sched_load_cfs_rq", 76,
        "\tfield:int cpu;\toffset:8;\tsize:4;\tsigned:1;\n"
        "\tfield:__data_loc char[] path;\toffset:12;\tsize:4;\tsigned:0;\n"
        "\tfield:unsigned long load;\toffset:16;\tsize:8;\tsigned:0;\n"
        "\tfield:unsigned long util;\toffset:24;\tsize:8;\tsigned:0;\n",
        '"cpu=%d path=%s load=%lu util=%lu", REC->cpu, __get_str(path), '
        'REC->load, REC->util'),
]


EXT4_SYNC_FILE = fmt(
    "ext4_sync_file", 301,
    "\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:ino_t ino;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:ino_t parent;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:int datasync;\toffset:32;\tsize:4;\tsigned:1;\n",
    '"dev %s ino %ld parent %ld datasync %d ", jbd2_dev_to_name(REC->dev), '
    '(long) REC->ino, (long) REC->parent, REC->datasync')

JBD2_RUN_STATS = fmt(
    "jbd2_run_stats", 1274,
    "\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:tid_t tid;\toffset:12;\tsize:4;\tsigned:0;\n" +
    "".join("\tfield:unsigned long %s;\toffset:%d;\tsize:8;\tsigned:0;\n" % (f, 16 + 8 * i)
            for i, f in enumerate(["wait", "request_delay", "running", "locked",
                                   "flushing", "logging"])) +
    "\tfield:__u32 handle_count;\toffset:64;\tsize:4;\tsigned:0;\n"
    "\tfield:__u32 blocks;\toffset:68;\tsize:4;\tsigned:0;\n"
    "\tfield:__u32 blocks_logged;\toffset:72;\tsize:4;\tsigned:0;\n",
    '"dev %d,%d tid %u wait %u request_delay %u running %u locked %u flushing %u '
    'logging %u handle_count %u blocks %u blocks_logged %u", ((unsigned int) '
    '((REC->dev) >> 20)), ((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->tid, '
    'jiffies_to_msecs(REC->wait), jiffies_to_msecs(REC->request_delay), '
    'jiffies_to_msecs(REC->running), jiffies_to_msecs(REC->locked), '
    'jiffies_to_msecs(REC->flushing), jiffies_to_msecs(REC->logging), '
    'REC->handle_count, REC->blocks, REC->blocks_logged')


def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def page(long_size, ts, records):
    """One ring-buffer page: records are (delta, payload) pairs."""
    body = b""
    for delta, data in records:
        data += b"\0" * (-len(data) % 4)
        assert 0 < len(data) <= 112 and delta < (1 << 27)
        body += u32((len(data) // 4) | (delta << 5)) + data
    head = u64(ts) + (u64(len(body)) if long_size == 8 else u32(len(body)))
    p = head + body
    return p + b"\0" * (4096 - len(p))


def write(path, long_size, systems, cmdlines, cpus):
    """systems: [(name, [format text])]; cpus: [[page bytes]]."""
    out = b"\x17\x08Dtracing" + b"6\0" + bytes([0, long_size]) + u32(4096)
    hp = header_page(long_size).encode()
    out += b"header_page\0" + u64(len(hp)) + hp
    he = HEADER_EVENT.encode()
    out += b"header_event\0" + u64(len(he)) + he
    out += u32(0)                               # ftrace formats
    out += u32(len(systems))
    for name, formats in systems:
        out += name.encode() + b"\0" + u32(len(formats))
        for f in formats:
            out += u64(len(f)) + f.encode()
    out += u32(0) + u32(0)                      # kallsyms, printk formats
    out += u64(len(cmdlines)) + cmdlines.encode()
    out += u32(len(cpus))
    out += b"options  \0" + struct.pack("<H", 0)
    out += b"flyrecord\0"
    at = (len(out) + 16 * len(cpus) + 4095) // 4096 * 4096
    for pages in cpus:
        out += u64(at) + u64(4096 * len(pages))
        at += 4096 * len(pages)
    out += b"\0" * (-len(out) % 4096)
    for pages in cpus:
        out += b"".join(pages)
    with open(path, "wb") as f:
        f.write(out)


def common(eid, pid, flags=0, preempt=0):
    return struct.pack("<HBBi", eid, flags, preempt, pid)


def binder(outdir):
    def cmd(eid, pid, c):
        return common(eid, pid, 1, 1) + u32(c)

    def switch(pc, pp, state, nc, np):
        return (common(68, pp) + pc.encode().ljust(16, b"\0") +
                struct.pack("<iii", pp, 120, state) + nc.encode().ljust(16, b"\0") +
                struct.pack("<ii", np, 120))

    us = 1000
    cpu0 = [
        (1000 * us, cmd(373, 1201, 0x40406300)),    # BC_TRANSACTION
        (50 * us, struct.pack("<HBBi7i", 383, 1, 1, 1201, 4711, 12, 800, 0, 0, 0x10, 3)),
        (20 * us, cmd(372, 1201, 0x7206)),          # BR_TRANSACTION_COMPLETE
        (300 * us, switch("surfaceflinger", 1201, 1, "swapper/0", 0)),
        (900 * us, switch("swapper/0", 0, 0, "Binder:800_2", 1202)),
        (10 * us, cmd(372, 1202, 0x80287202)),      # BR_TRANSACTION
        (40 * us, cmd(373, 1202, 0x40406301)),      # BC_REPLY
        (5 * us, cmd(372, 1202, 0xff)),             # past the table
        (70 * us, switch("Binder:800_2", 1202, 1024, "swapper/0", 0)),
    ]
    cpu1 = [
        (400 * us, cmd(373, 1300, 0x40046303)),     # BC_FREE_BUFFER
        (25 * us, cmd(372, 1300, 0x720c)),          # BR_NOOP
        (1 * us, switch("system_server", 1300, 2, "swapper/1", 0)),
    ]
    write(os.path.join(outdir, "mk-binder.dat"), 4,
          [("binder", BINDER), ("sched", [SCHED_SWITCH32])],
          "1201 surfaceflinger\n1202 Binder:800_2\n1300 system_server\n",
          [[page(4, 100000000, cpu0)], [page(4, 100000500, cpu1)]])


def strings(outdir):
    def loc(off, length):
        return u32(off | (length << 16))

    def se(pid, path, comm, tpid, load, util, tail=b""):
        # path at 56, as the kernel lays it out; tail: bytes after it.
        return (common(75, pid) + struct.pack("<i", 2) + loc(56, len(path)) +
                comm.encode().ljust(16, b"\0") + struct.pack("<ii", tpid, 0) +
                u64(load) + u64(util) + path + tail)

    def cfs(pid, path, load, util, length=None, tail=b""):
        return (common(76, pid) + struct.pack("<i", 2) +
                loc(32, len(path) if length is None else length) +
                u64(load) + u64(util) + path + tail)

    recs = [
        # The lisa file's: "(null)", 6 bytes, its NUL in the padding.
        (100, se(0, b"(null)", "kworker/2:1", 2923, 0, 0)),
        (5, cfs(0, b"/\0", 0, 0)),
        (16, cfs(0, b"/autogroup-1\0", 1024, 87)),
        (4, se(0, b"/autogroup-12\0", "bash", 3100, 1023, 410)),
        # A length shorter than the text: printed to the NUL.
        (7, cfs(0, b"/autogroup-9\0", 12, 3, length=4)),
        # No NUL in the record: the string runs on into the next
        # record's header, to its first NUL, as libtraceevent reads it.
        (9, cfs(0, b"/ab(null)", 5, 6, tail=b"xyz")),
        (1, cfs(0, b"/\0", 7, 8)),
        # An empty string.
        (3, cfs(0, b"", 9, 10)),
        (2, se(0, b"(null)", "swapper/2", 0, 0, 0)),
    ]
    write(os.path.join(outdir, "mk-strings.dat"), 8,
          [("sched", SCHED_LOAD)], "2923 kworker/2:1\n3100 bash\n",
          [[], [], [page(8, 2084021442860, recs)]])


def plugfn(outdir):
    def sync(pid, dev, ino, parent, datasync):
        return common(301, pid) + struct.pack("<I4xQQi4x", dev, ino, parent, datasync)

    def stats(pid, dev, tid, times, handles, blocks, logged):
        return common(1274, pid) + struct.pack("<II6QIII4x", dev, tid, *times,
                                               handles, blocks, logged)

    us = 1000
    recs = [
        (100 * us, sync(2201, (8 << 20) | 1, 131074, 2, 0)),
        (30 * us, stats(310, (8 << 20) | 1, 4711, (0, 0, 5012, 0, 1, 12), 7, 9, 11)),
        (2 * us, sync(2201, (259 << 20) | 3, 4096, 128, 1)),
    ]
    write(os.path.join(outdir, "mk-plugfn.dat"), 8,
          [("ext4", [EXT4_SYNC_FILE]), ("jbd2", [JBD2_RUN_STATS])],
          "2201 postgres\n310 jbd2/sda1-8\n",
          [[page(8, 5000000000, recs)]])


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    binder(outdir)
    strings(outdir)
    plugfn(outdir)
    print("mk-binder.dat\nmk-strings.dat\nmk-plugfn.dat")


main()
