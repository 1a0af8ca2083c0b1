#!/usr/bin/env python3
"""Race perft against the other move generators, one thread each, in one run.

usage: python3 tools/race.py [--rounds N] [--deep] [--engines LIST] [--only LIST]
                             [--perft BIN] [--ours-args "ARGS"] [--stockfish BIN] [--gigantua BIN]

The six standard positions (Chess Programming Wiki, "Perft Results"): start position depth 6,
Kiwipete 5, position 3 depth 7, position 4 depth 6, position 5 depth 5, position 6 depth 5
(1.45 billion nodes); with --deep one ply deeper where that takes under a second (start position
7, Kiwipete 6, position 3 8, position 5 6, position 6 6: 24.9 billion nodes), so that start-up
and timer resolution vanish.

Engines: ours (target/release/perft, or --perft BIN; run with --threads 1 and the counting
options' defaults, plus --ours-args), the crates shakmaty, cozy-chess and chess through
tools/peers (built here with `cargo build --release` on first use), Debian's Stockfish
(`apt-get install stockfish`; its `go perft` over UCI, found on PATH or at /usr/games/stockfish,
or --stockfish BIN) and, with --gigantua BIN, Gigantua (a binary you built from
github.com/Gigantua/Gigantua, called as `BIN "<fen>" <depth>`). --engines picks some
(ours always runs): e.g. --engines gigantua.

Every engine runs every position once per round, the order of engines reversed every other
round, so a slow spell of a shared machine falls on all of them. Each engine's time on a
position is the median over the rounds; its total is the sum over the positions. Our time is
the whole process, start-up included; the peers' is their own timer's around the count alone,
Stockfish's from `go perft` to its answer, Gigantua's its own timer's for the last depth: every
ratio printed is conservative for us. Every count is checked against the published one; a
wrong count stops the race (exit 1).

Prints one line per engine (total seconds, Mnps, per-position medians), then the ratio of the
fastest peer's total to ours, and of Gigantua's to ours when it ran.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, FEN, depth, published count, deep depth, published deep count): Chess Programming
# Wiki, "Perft Results", positions 1 to 6.
POSITIONS = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     6, 119060324, 7, 3195901860),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
     5, 193690690, 6, 8031647685),
    ("pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
     7, 178633661, 8, 3009794393),
    ("pos4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
     6, 706045033, 6, 706045033),
    ("pos5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
     5, 89941194, 6, 3048196529),
    ("pos6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
     5, 164075551, 6, 6923051137),
]


class Failed(Exception):
    pass


def run(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except OSError as err:
        raise Failed(f"cannot run {cmd[0]}: {err.strerror}")
    if out.returncode != 0:
        raise Failed(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()[-300:]}")
    return out.stdout + out.stderr


def ours(perft, extra):
    def time_one(fen, depth):
        start = time.perf_counter()
        text = run([perft, "--fen", fen, "--depth", str(depth), "--threads", "1", *extra])
        return int(text.split()[0]), time.perf_counter() - start
    return time_one


def peer(binary, lib):
    def time_one(fen, depth):
        text = run([binary, lib, str(depth), fen])
        m = re.search(r"nodes=(\d+) secs=([0-9.]+)", text)
        if not m:
            raise Failed(f"{lib}: no count in {text!r}")
        return int(m.group(1)), float(m.group(2))
    return time_one


class Stockfish:
    """One Stockfish process over UCI for the whole race: its network is loaded once."""

    def __init__(self, binary):
        self.proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name Threads value 1")
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, prefix):
        for line in self.proc.stdout:
            if line.startswith(prefix):
                return line
        raise Failed(f"stockfish ended before '{prefix}'")

    def __call__(self, fen, depth):
        self.send(f"position fen {fen}")
        self.send("isready")
        self.wait("readyok")
        start = time.perf_counter()
        self.send(f"go perft {depth}")
        line = self.wait("Nodes searched")
        return int(line.split(":")[1]), time.perf_counter() - start


def gigantua(binary):
    def time_one(fen, depth):
        text = run([binary, fen, str(depth)])
        # One line per depth: "Perft N: <nodes> <ms>ms <rate> MNodes/s", rate = nodes / us.
        m = re.search(rf"Perft {depth}: (\d+) \d+ms ([0-9.]+) MNodes/s", text)
        if not m:
            raise Failed(f"gigantua: no depth {depth} line in {text[-300:]!r}")
        nodes = int(m.group(1))
        return nodes, nodes / float(m.group(2)) / 1e6
    return time_one


def peers_binary():
    crate = os.path.join(ROOT, "tools", "peers")
    binary = os.path.join(crate, "target", "release", "peers")
    if not os.path.exists(binary):
        print("building tools/peers (shakmaty, cozy-chess, chess) ...", file=sys.stderr)
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=crate, check=True)
    return binary


def chosen_positions(deep, only=None):
    """(name, fen, depth, published nodes) of POSITIONS at the default or --deep depths."""
    return [(n, fen, dd, deep_n) if deep else (n, fen, d, nodes)
            for n, fen, d, nodes, dd, deep_n in POSITIONS
            if not only or n in only]


def timed(engines, positions, rounds):
    """Times every engine on every position, alternating the engines' order round by round;
    checks every count against the published one (a wrong one ends the run). Prints each
    engine's line and returns its total: the sum over the positions of the median time."""
    times = {e: {p[0]: [] for p in positions} for e in engines}
    try:
        for r in range(rounds):
            order = list(engines) if r % 2 == 0 else list(reversed(engines))
            for name, fen, depth, want in positions:
                for e in order:
                    nodes, secs = engines[e](fen, depth)
                    if nodes != want:
                        raise Failed(f"{e}: {name} depth {depth} gave {nodes}, published {want}")
                    times[e][name].append(secs)
    except Failed as err:
        sys.exit(f"stopped: {err}")
    total = {e: sum(statistics.median(v) for v in times[e].values()) for e in engines}
    nodes = sum(p[3] for p in positions)
    for e in engines:
        per = " ".join(f"{k}={statistics.median(v):.3f}" for k, v in times[e].items())
        print(f"{e:10s} {total[e]:8.2f} s {nodes / total[e] / 1e6:9.1f} Mnps  {per}")
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--deep", action="store_true")
    ap.add_argument("--engines", help="comma-separated: shakmaty,cozy,chess,stockfish,gigantua")
    ap.add_argument("--only", help="comma-separated positions: startpos,kiwipete,pos3,...")
    ap.add_argument("--perft", default=os.path.join(ROOT, "target", "release", "perft"))
    ap.add_argument("--ours-args", default="", help='e.g. "--simd none" or "--sliders magic"')
    ap.add_argument("--stockfish")
    ap.add_argument("--gigantua")
    a = ap.parse_args()
    if not os.path.exists(a.perft):
        sys.exit(f"{a.perft} not found: cargo build --release first")
    for option, path in (("--perft", a.perft), ("--stockfish", a.stockfish),
                         ("--gigantua", a.gigantua)):
        if path is not None and not (os.path.isfile(path) and os.access(path, os.X_OK)):
            sys.exit(f"{option} {path}: not an executable file")
    wanted = set(a.engines.split(",")) if a.engines else None
    engines = {"ours": ours(a.perft, a.ours_args.split())}
    if wanted is None or wanted & {"shakmaty", "cozy", "chess"}:
        binary = peers_binary()
        for lib in ("shakmaty", "cozy", "chess"):
            if wanted is None or lib in wanted:
                engines[lib] = peer(binary, lib)
    if wanted is None or "stockfish" in wanted:
        sf = a.stockfish or shutil.which("stockfish") or (
            "/usr/games/stockfish" if os.path.exists("/usr/games/stockfish") else None)
        if sf:
            try:
                engines["stockfish"] = Stockfish(sf)
            except (OSError, Failed) as err:
                sys.exit(f"stockfish ({sf}) could not be started: {err}")
        else:
            print("stockfish not found (apt-get install stockfish): left out", file=sys.stderr)
    if a.gigantua:
        engines["gigantua"] = gigantua(a.gigantua)
    positions = chosen_positions(a.deep, a.only.split(",") if a.only else None)
    total = timed(engines, positions, a.rounds)
    nodes = sum(p[3] for p in positions)
    mnps = {e: nodes / total[e] / 1e6 for e in engines}
    peers = [e for e in engines if e not in ("ours", "gigantua")]
    if peers:
        best = min(peers, key=lambda e: total[e])
        print(f"ratio {total[best] / total['ours']:.2f} (ours {mnps['ours']:.0f} Mnps vs best peer "
              f"{best} {mnps[best]:.0f} Mnps)")
    if "gigantua" in engines:
        print(f"gigantua ratio {total['gigantua'] / total['ours']:.3f} (ours {mnps['ours']:.0f} "
              f"Mnps vs gigantua {mnps['gigantua']:.0f} Mnps)")


if __name__ == "__main__":
    main()
