#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fuzz seeds from trace.dat files.

  mkseed.py IN OUT [MAX_PAGES]
      A small seed for fuzz_file from a v6 trace.dat (one ktrace or
      trace-cmd records): the same file without its kallsyms (megabytes)
      and with at most MAX_PAGES (4) pages per CPU, offsets rewritten.

  mkseed.py --seeds DIR FILE...
      Seeds for every target but filter, into DIR/file, DIR/page and
      DIR/format (made if missing), named after FILE:
        file/NAME     a v6 file shrunk as above (one whose data is in an
                      instance, and a v7 file: whole, when it is at most
                      64 KB; their sections are not rewritten)
        page/NAME-bB-cN  the first 4 pages of each CPU of each buffer
                      of a v6 file (what fuzz_page puts behind its
                      template)
        format/...    each event format of a v6 file, once per distinct
                      text: as fuzz_format reads it, the text alone, or
                      for the ftrace system's formats the text, a NUL and
                      the flags byte 1
      The seeds are many and overlap: make them into a scratch directory
      and let the fuzzer keep what adds coverage (-merge=1, see
      RELIABILITY.md "Fuzzing runs").
"""
import hashlib
import os
import struct
import sys


def parse_v6(src):
    """The parts of a v6 file: page size, where the formats end, the
    formats, where the sections after kallsyms start, the CPU table."""
    assert src[3:10] == b'tracing', 'not a trace.dat'
    o = src.index(b'\0', 10) + 1 + 2
    page, = struct.unpack_from('<I', src, o)
    o += 4
    for name in (b'header_page\0', b'header_event\0'):
        o += len(name)
        n, = struct.unpack_from('<Q', src, o)
        o += 8 + n
    formats = []                          # (system, text)
    n, = struct.unpack_from('<I', src, o)
    o += 4
    for _ in range(n):
        ln, = struct.unpack_from('<Q', src, o)
        formats.append(('ftrace', src[o + 8:o + 8 + ln]))
        o += 8 + ln
    ns, = struct.unpack_from('<I', src, o)
    o += 4
    for _ in range(ns):
        end = src.index(b'\0', o)
        system = src[o:end].decode(errors='replace')
        o = end + 1
        c, = struct.unpack_from('<I', src, o)
        o += 4
        for _ in range(c):
            ln, = struct.unpack_from('<Q', src, o)
            formats.append((system, src[o + 8:o + 8 + ln]))
            o += 8 + ln
    formats_end = o
    ks, = struct.unpack_from('<I', src, o)
    o += 4 + ks
    rest = o                              # printk, cmdlines, cpus, options
    pk, = struct.unpack_from('<I', src, o)
    o += 4 + pk
    cl, = struct.unpack_from('<Q', src, o)
    o += 8 + cl
    ncpu, = struct.unpack_from('<I', src, o)
    o += 4
    buffers = []                          # instances: their CPU tables
    if src[o:o + 10] == b'options  \0':
        o += 10
        while True:
            oid, = struct.unpack_from('<H', src, o)
            o += 2
            if oid == 0:
                break
            ln, = struct.unpack_from('<I', src, o)
            if oid == 3:                  # BUFFER: offset, name
                at, = struct.unpack_from('<Q', src, o + 4)
                buffers.append([struct.unpack_from('<QQ', src, at + 16 * i)
                                for i in range(ncpu)])
            o += 4 + ln
    assert src[o:o + 10] == b'flyrecord\0', 'not a flyrecord file'
    o += 10
    table = [struct.unpack_from('<QQ', src, o + 16 * i) for i in range(ncpu)]
    return dict(page=page, formats=formats, formats_end=formats_end,
                rest=rest, fly=o, table=table, buffers=buffers)


def is_latency(src):
    try:
        parse_v6(src)
    except AssertionError:
        return b'latency  \0' in src
    return False


def shrink(src, max_pages):
    """The v6 file without kallsyms, at most max_pages pages per CPU."""
    f = parse_v6(src)
    page, o, table = f['page'], f['fly'], f['table']
    after = o + 16 * len(table)
    clen, = struct.unpack_from('<Q', src, after)
    head = src[:f['formats_end']] + struct.pack('<I', 0) + src[f['rest']:o]
    tail = src[after:after + 8 + clen]
    pos = len(head) + 16 * len(table) + len(tail)
    pos = (pos + page - 1) // page * page
    entries, datas = [], []
    for off, size in table:
        size = min(size, max_pages * page)
        entries.append(struct.pack('<QQ', pos, size))
        datas.append(src[off:off + size])
        pos += size
    out = head + b''.join(entries) + tail
    out += b'\0' * ((-len(out)) % page)
    for d in datas:
        out += d
    return out


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)


def seeds(outdir, files):
    seen = set()
    for path in files:
        src = open(path, 'rb').read()
        name = os.path.basename(path)
        if name.endswith('.dat'):
            name = name[:-4]
        # v7, and latency-format files (their text instead of pages):
        # whole, if small.
        if src[3:11] != b'tracing6' or is_latency(src):
            if len(src) <= 64 << 10:
                write(os.path.join(outdir, 'file', name), src)
            continue
        f = parse_v6(src)
        # shrink() keeps the options as they are: an instance's data
        # would be lost, so such a file is taken whole or not at all.
        if not f['buffers']:
            write(os.path.join(outdir, 'file', name), shrink(src, 4))
        elif len(src) <= 64 << 10:
            write(os.path.join(outdir, 'file', name), src)
        for b, table in enumerate([f['table']] + f['buffers']):
            for cpu, (off, size) in enumerate(table):
                if size:
                    write(os.path.join(outdir, 'page', '%s-b%d-c%d' % (name, b, cpu)),
                          src[off:off + min(size, 4 * f['page'])])
        for system, text in f['formats']:
            data = text + (b'\0\1' if system == 'ftrace' else b'')
            h = hashlib.sha1(data).hexdigest()
            if h in seen:
                continue
            seen.add(h)
            ev = text.split(b'\n', 1)[0].split(b':', 1)[-1].strip()
            ev = ev.decode(errors='replace').replace('/', '_')[:40]
            write(os.path.join(outdir, 'format', '%s-%s-%s' % (name, system, ev)),
                  data)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == '--seeds':
        seeds(sys.argv[2], sys.argv[3:])
        return
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    src = open(sys.argv[1], 'rb').read()
    max_pages = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    write(sys.argv[2], shrink(src, max_pages))


if __name__ == '__main__':
    main()
