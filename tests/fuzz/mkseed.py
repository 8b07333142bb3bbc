#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make a small fuzz seed from a v6 trace.dat (one ktrace records): the
same file without its kallsyms (megabytes) and with at most MAX_PAGES
pages per CPU, offsets rewritten.  Usage: mkseed.py IN OUT [MAX_PAGES]"""
import struct
import sys

src = open(sys.argv[1], 'rb').read()
max_pages = int(sys.argv[3]) if len(sys.argv) > 3 else 4
o = src.index(b'\0', 10) + 1 + 2
page, = struct.unpack_from('<I', src, o)
o += 4
for name in (b'header_page\0', b'header_event\0'):
    o += len(name)
    n, = struct.unpack_from('<Q', src, o)
    o += 8 + n
n, = struct.unpack_from('<I', src, o)
o += 4
for _ in range(n):
    ln, = struct.unpack_from('<Q', src, o)
    o += 8 + ln
ns, = struct.unpack_from('<I', src, o)
o += 4
for _ in range(ns):
    o = src.index(b'\0', o) + 1
    c, = struct.unpack_from('<I', src, o)
    o += 4
    for _ in range(c):
        ln, = struct.unpack_from('<Q', src, o)
        o += 8 + ln
formats_end = o
ks, = struct.unpack_from('<I', src, o)
o += 4 + ks
rest = o                                  # printk, cmdlines, cpus, options
pk, = struct.unpack_from('<I', src, o)
o += 4 + pk
cl, = struct.unpack_from('<Q', src, o)
o += 8 + cl
ncpu, = struct.unpack_from('<I', src, o)
o += 4
if src[o:o + 10] == b'options  \0':
    o += 10
    while True:
        oid, = struct.unpack_from('<H', src, o)
        o += 2
        if oid == 0:
            break
        ln, = struct.unpack_from('<I', src, o)
        o += 4 + ln
assert src[o:o + 10] == b'flyrecord\0', 'not a flyrecord file'
o += 10
table = [struct.unpack_from('<QQ', src, o + 16 * i) for i in range(ncpu)]
after = o + 16 * ncpu
clen, = struct.unpack_from('<Q', src, after)
head = src[:formats_end] + struct.pack('<I', 0) + src[rest:o]
tail = src[after:after + 8 + clen]
pos = len(head) + 16 * ncpu + len(tail)
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
open(sys.argv[2], 'wb').write(out)
