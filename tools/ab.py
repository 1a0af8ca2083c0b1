#!/usr/bin/env python3
"""Compare builds of perft on `perft --bench`, alternating them round by round.

usage: tools/ab.py ROUNDS BASE OTHER [OTHER...] [--args "ARGS"]

Prints, per build, the sum over the six bench positions of its per-position minimum and median
times, the per-position minimums, and each other build's speed-up over BASE on both sums.
Minimums are the least exposed to a shared machine's slow spells. --args passes options to
every `perft --bench` run, e.g. --args "--simd avx2" to time one code path.
"""
import collections
import os
import statistics
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    extra = []
    if "--args" in argv:
        i = argv.index("--args")
        extra = argv[i + 1].split()
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 3:
        sys.exit(__doc__)
    rounds, bins = int(argv[0]), argv[1:]
    for b in bins:
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            sys.exit(f"{b}: not an executable file")
    times = {b: collections.defaultdict(list) for b in bins}
    for r in range(rounds):
        for b in bins if r % 2 == 0 else bins[::-1]:
            out = subprocess.run([b, "--bench", *extra], capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"{b} --bench {' '.join(extra)} exited {out.returncode}: "
                         f"{out.stderr.strip()[-300:]}")
            for line in out.stdout.splitlines():
                f = line.split()
                # "<name> depth <d> <nodes> nodes <secs> s <mnps> Mnps"
                if len(f) >= 6 and f[-1] == "Mnps" and f[0] != "total":
                    times[b][f[0]].append(float(f[-4]))
    sums = {}
    for b in bins:
        t = times[b]
        sums[b] = (sum(min(v) for v in t.values()), sum(statistics.median(v) for v in t.values()))
        per = " ".join(f"{k}={min(v):.3f}" for k, v in t.items())
        print(f"{b:35s} sum-min {sums[b][0]:.4f}  sum-median {sums[b][1]:.4f}  {per}")
    base = sums[bins[0]]
    for b in bins[1:]:
        print(f"{b}: {base[0] / sums[b][0]:.3f}x (minimums), {base[1] / sums[b][1]:.3f}x (medians)")


if __name__ == "__main__":
    main()
