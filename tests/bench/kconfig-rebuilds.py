#!/usr/bin/env python3
# What a config change costs an object directory (docs/kernel.md,
# "Measured"): of the objects OBJDIR compiled with OLD, those kbuild would
# compile again with NEW (their .cmd files depend, through fixdep, on
# $(wildcard include/config/SYM) of a symbol whose value differs), and the
# symbols that cost most. New objects NEW adds are not counted.
#
#   tests/bench/kconfig-rebuilds.py OBJDIR OLD.config NEW.config
import os
import re
import sys


def symbols(path):
    vals = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'CONFIG_(\w+)=(.*)', line)
            if m:
                vals[m.group(1)] = m.group(2)
            m = re.match(r'# CONFIG_(\w+) is not set', line)
            if m:
                vals[m.group(1)] = 'n'
    return vals


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__ or "usage: kconfig-rebuilds.py OBJDIR OLD.config NEW.config")
    old, new = symbols(sys.argv[2]), symbols(sys.argv[3])
    changed = {s for s in set(old) | set(new) if old.get(s, 'n') != new.get(s, 'n')}
    total = again = 0
    cost = {}
    for root, _, files in os.walk(sys.argv[1]):
        for name in files:
            if not name.endswith('.o.cmd'):
                continue
            with open(os.path.join(root, name), errors='replace') as f:
                text = f.read()
            if ' -c ' not in text:
                continue    # a link, not a compile
            total += 1
            hit = set(re.findall(r'include/config/(\w+)\)', text)) & changed
            if hit:
                again += 1
                for s in hit:
                    cost[s] = cost.get(s, 0) + 1
    print(f"{len(changed)} symbols changed; {total} objects compiled, {again} would be compiled again")
    for s, n in sorted(cost.items(), key=lambda x: -x[1])[:10]:
        print(f"  CONFIG_{s}: {n}")


main()
