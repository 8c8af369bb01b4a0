#!/bin/bash
# make bench: every input kreg accepts is handled in time linear in its size
# (issue 13, item 5). For each kind of input, kreg runs on a size N and on
# 10 N, in this run; the figure is the CPU time (user + sys of kreg) and the
# ratio of the two, which is about 10 for linear work (about 100 would be
# quadratic; below 10 when start-up dominates).
#   job nesting      a job file of nested '[' (refused after a linear scan)
#   job keys         a job file with N top-level keys, split
#   config nesting   kreg.yaml with nested '[' (refused)
#   matrix nesting   a sample matrix of nested '[' for compare (refused)
#   fxmark sections  an fxmark log of N sections, 14 columns each, parsed
#   compare metrics  two JSON matrices of N metrics x 3 runs, compared
# Work files in build/bench-sizes (removed first).
set -u
: "${KREG:?set KREG to the kreg binary}" "${KREG_SRC:?set KREG_SRC to the source tree}"
W="$KREG_SRC/build/bench-sizes"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
export KREG_DATA_DIR="$W/data"
exec /usr/bin/python3 - "$KREG" <<'PY'
import json, os, random, resource, subprocess, sys

kreg = sys.argv[1]
random.seed(1)

def cpu(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime), r.returncode

def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return os.path.getsize(path)

def nested(n, kind):
    name = "%s-%d.yaml" % (kind, n)
    head = {"job": "a: ", "config": "data_dir: d\nx: ", "matrix": "m: "}[kind]
    return name, write(name, head + "[" * n + "\n")

def job_keys(n):
    name = "keys-%d.yaml" % n
    return name, write(name, "suite: x\n" + "".join("key%d: v%d\n" % (i, i) for i in range(n)))

COLS = "ncpu secs works works/sec real.sec user.sec nice.sec sys.sec idle.sec iowait.sec irq.sec softirq.sec steal.sec guest.sec"
def fxmark(n):
    name = "fxmark-%d.log" % n
    sec = "## ssd:f2fs:T%d:1:bufferedio\n# " + COLS + "\n\n1 0.06 10048 162460.1 0.1 0.1 0 0.1 0 0 0 0 0 0\n\n"
    return name, write(name, "".join(sec % i for i in range(n)))

def matrices(n):
    for side in "ab":
        m = {"m%d" % i: [random.random() + (side == "b" and i % 7 == 0) for _ in range(3)]
             for i in range(n)}
        write("m-%d-%s.json" % (n, side), json.dumps(m))
    return "m-%d" % n, os.path.getsize("m-%d-a.json" % n) * 2

cases = [
    ("job nesting", 160000, lambda n: nested(n, "job"),
     lambda f: [kreg, "job", "split", "-o", "atoms", f], 1),
    ("job keys", 4000, job_keys, lambda f: [kreg, "job", "split", "-o", "atoms", f], 0),
    ("config nesting", 160000, lambda n: nested(n, "config"),
     lambda f: [kreg, "config", "check", f], 1),
    ("matrix nesting", 160000, lambda n: nested(n, "matrix"),
     lambda f: [kreg, "compare", f, f], 1),
    ("fxmark sections", 2000, fxmark, lambda f: [kreg, "job", "parse", "fxmark", f], 0),
    ("compare metrics", 10000, matrices,
     lambda f: [kreg, "compare", "--all", f + "-a.json", f + "-b.json"], 0),
]
print("%-16s %10s %10s %9s %9s %6s" % ("input", "N", "bytes", "cpu s", "cpu s", "ratio"))
print("%-16s %10s %10s %9s %9s %6s" % ("", "", "(10 N)", "(N)", "(10 N)", ""))
bad = 0
for what, n, make, argv, want_rc in cases:
    times = []
    for size in (n, 10 * n):
        f, nbytes = make(size)
        t, rc = cpu(argv(f))
        if (rc != 0) != bool(want_rc):
            print("%s: kreg exited %d on %s" % (what, rc, f))
            bad = 1
        times.append(t)
    ratio = times[1] / times[0] if times[0] > 0 else float("inf")
    print("%-16s %10d %10d %9.3f %9.3f %6.1f" % (what, n, nbytes, times[0], times[1], ratio))
sys.exit(bad)
PY
