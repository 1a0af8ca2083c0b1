#!/usr/bin/env python3
"""Time commands against each other, alternating them round by round.

usage: tools/alt.py ROUNDS CMD [CMD...]

Each CMD is one shell command (quote it). Prints, per command, the minimum and median wall time
over the rounds, and each command's time as a ratio of the first one's (minimums and medians).
Alternating (the order reversed every other round) spreads a shared machine's slow spells over
all of them; minimums are the least exposed to those spells.
"""
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds, cmds = int(sys.argv[1]), sys.argv[2:]
    times = {c: [] for c in cmds}
    for r in range(rounds):
        for c in cmds if r % 2 == 0 else cmds[::-1]:
            start = time.perf_counter()
            done = subprocess.run(c, shell=True, stdout=subprocess.DEVNULL)
            if done.returncode != 0:
                sys.exit(f"exited {done.returncode} (a timing of a failed command means nothing): {c}")
            times[c].append(time.perf_counter() - start)
    base = cmds[0]
    b_min, b_med = min(times[base]), statistics.median(times[base])
    for c in cmds:
        t = times[c]
        lo, med = min(t), statistics.median(t)
        print(f"min {lo:8.3f} s  median {med:8.3f} s  "
              f"ratio {lo / b_min:.3f} (min) {med / b_med:.3f} (median)  {c}")


if __name__ == "__main__":
    main()
