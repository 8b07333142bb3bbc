#!/usr/bin/env python3
# Check lib/views/perfetto_trace.proto, the part of Perfetto's trace
# format report --format perfetto writes, against upstream's own files
# (tests/data/perfetto-protos/, google/perfetto's protos/perfetto/trace/
# at the commit the subset names): every message, enum and oneof of the
# subset is upstream's, each field with upstream's number, type and
# label, each enum value with its number.  Prints "ok N messages, M
# fields" or what differs, and exits 1.
#
# Usage: tests/perfetto-proto-check.py SUBSET.proto UPSTREAM_DIR
import os
import re
import sys

TOKEN = re.compile(r'"[^"]*"|[A-Za-z_][A-Za-z0-9_.]*|-?\d+|[{}=;\[\](),<>]')


def tokens(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return TOKEN.findall(text)


def skip_statement(t, i):
    """Past the ';' ending the statement at t[i] (brackets balanced)."""
    depth = 0
    while i < len(t):
        if t[i] in '[(':
            depth += 1
        elif t[i] in '])':
            depth -= 1
        elif t[i] == ';' and depth == 0:
            return i + 1
        i += 1
    return i


def parse_block(t, i, scope, out, oneof=None):
    """The body of a message from t[i] (after '{') to its '}'."""
    fields = out.setdefault(scope, {})
    while i < len(t) and t[i] != '}':
        w = t[i]
        if w in ('message', 'enum'):
            name = t[i + 1]
            sub = scope + '.' + name
            if w == 'message':
                out[sub] = {}
                i = parse_block(t, i + 3, sub, out)
            else:
                i = parse_enum(t, i + 3, sub, out)
        elif w == 'oneof':
            fields['oneof ' + t[i + 1]] = ('oneof', '', 0)
            i = parse_block(t, i + 3, scope, out, oneof=t[i + 1])
        elif w in ('reserved', 'extensions', 'option', 'extend'):
            if w == 'extend':
                depth, i = 0, i
                while t[i] != '{':
                    i += 1
                depth = 1
                i += 1
                while depth:
                    depth += {'{': 1, '}': -1}.get(t[i], 0)
                    i += 1
            else:
                i = skip_statement(t, i)
        elif w == ';':
            i += 1
        else:
            label = ''
            if w in ('optional', 'repeated', 'required'):
                label, i = w, i + 1
            typ, name = t[i], t[i + 1]
            assert t[i + 2] == '=', (scope, t[i:i + 4])
            num = int(t[i + 3])
            fields[name] = (label if not oneof else 'oneof ' + oneof, typ, num)
            i = skip_statement(t, i)
    return i + 1


def parse_enum(t, i, scope, out):
    vals = out.setdefault(scope, {})
    while t[i] != '}':
        if t[i] in ('reserved', 'option'):
            i = skip_statement(t, i)
            continue
        if t[i] == ';':
            i += 1
            continue
        vals[t[i]] = ('enum', '', int(t[i + 2]))
        i = skip_statement(t, i)
    return i + 1


def parse_file(path, out):
    t = tokens(open(path).read())
    pkg = ''
    i = 0
    while i < len(t):
        if t[i] == 'package':
            pkg = t[i + 1]
            i += 2
        elif t[i] in ('message', 'enum'):
            scope = pkg + '.' + t[i + 1]
            if t[i] == 'message':
                out[scope] = {}
                i = parse_block(t, i + 3, scope, out)
            else:
                i = parse_enum(t, i + 3, scope, out)
        else:
            i += 1


def main():
    if len(sys.argv) != 3:
        print(__doc__ or 'usage: perfetto-proto-check.py SUBSET.proto UPSTREAM_DIR', file=sys.stderr)
        return 64
    mine, up = {}, {}
    parse_file(sys.argv[1], mine)
    for root, _, files in os.walk(sys.argv[2]):
        for f in files:
            if f.endswith('.proto'):
                parse_file(os.path.join(root, f), up)
    bad = []
    nfields = 0
    for scope, fields in sorted(mine.items()):
        if scope not in up:
            bad.append('%s: not upstream' % scope)
            continue
        for name, want in fields.items():
            got = up[scope].get(name)
            if got is None:
                bad.append('%s.%s: not upstream' % (scope, name))
                continue
            # Upstream's field types may name messages by their scope.
            wt, gt = want[1].split('.')[-1], got[1].split('.')[-1]
            if (want[0], wt, want[2]) != (got[0], gt, got[2]):
                bad.append('%s.%s: %s, upstream %s' % (scope, name, want, got))
            nfields += 1
    if bad:
        print('\n'.join(bad))
        return 1
    print('ok %d messages, %d fields' % (len(mine), nfields))
    return 0


if __name__ == '__main__':
    sys.exit(main())
