#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/coldget-walk.py EXE TRACE [-v]: the files a traced call walks through.
# "every call": the file current after each entry/exit, repeats collapsed;
# "first-entry walk": the same with every function counted on its first
# entry only (a loop over the same helpers counts once).  A stop is a file
# reached; a return is a stop at a file the walk had already left.
import sys, subprocess
exe, trace = sys.argv[1], sys.argv[2]
ev = [l.split() for l in open(trace)]
addrs = sorted({e[1] for e in ev if e[0] == '>'})
out = subprocess.run(['addr2line', '-f', '-e', exe] + ['0x'+a for a in addrs], capture_output=True, text=True).stdout.split('\n')
fmap = {a: out[2*i+1].split(':')[0] for i, a in enumerate(addrs)}
fname = {a: out[2*i] for i, a in enumerate(addrs)}
def short(p):
    i = p.rfind('/lib/')
    return p[i+5:] if i >= 0 else None
def walk(first_only):
    stack, seq, seenfn, skip = [], [], set(), 0
    for e in ev:
        if skip:
            skip += 1 if e[0] == '>' else -1
            continue
        if e[0] == '>':
            if first_only and e[1] in seenfn:
                skip = 1
                continue
            seenfn.add(e[1])
            stack.append(short(fmap[e[1]]))
        elif stack:
            stack.pop()
        cur = next((f for f in reversed(stack) if f), None)
        if cur and (not seq or seq[-1] != cur):
            seq.append(cur)
    left, returns, prev = set(), 0, None
    for f in seq:
        if f in left: returns += 1
        if prev: left.add(prev)
        prev = f
    return seq, returns, seenfn
for first in (False, True):
    seq, returns, fns = walk(first)
    files = set(seq)
    print(f"{'first-entry walk' if first else 'every call      '}: functions {len(fns)}  stops {len(seq)}  files {len(files)} "
          f"({len([f for f in files if f.endswith('.c')])} .c)  returns to a file already left {returns}")
print('files:', ' '.join(sorted(set(walk(True)[0]))))
if len(sys.argv) > 3:
    print(' -> '.join(walk(True)[0]))
