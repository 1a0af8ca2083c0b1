#!/usr/bin/env python3
"""The speed guard: this build against a pinned reference build and against Gigantua, on this CPU.

usage: python3 tools/guard.py --gigantua BIN [--rounds N] [--quick] [--perft BIN]
                              [--ours-args "ARGS"] [--reference COMMIT]

Times our binary (target/release/perft, or --perft), the reference build (the commit the table
below names for this CPU class, built once into target/guard/), and Gigantua built on this
machine (--gigantua: its build script is not part of this repository; build it for the code
path being timed: -march=native for the default, -march=x86-64-v3 for `--ours-args "--simd
avx2"`), one thread each, alternating round by round, on the six standard positions of
tools/race.py (--deep depths, 24.9 billion nodes; --quick: the default depths). Absolute times
do not travel between machines; ratios to builds made on the same machine do, between machines
of one class.

Then compares the two ratios with the ones recorded for this CPU class and code path in the
table "Speed guard" of docs/performance.md (columns: class, code, reference, vs reference, vs
Gigantua, recorded): a drop of more than 3% in either is printed as DROP and the exit status
is 1. The reference's own ratio to Gigantua in the same run is printed beside ours: where it
fell as far, the guest slowed both builds. A class or code path with no row needs --reference,
and prints the figures to record (exit 0). Every count is checked against the published one.
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOLERANCE = 0.03


def load_race():
    spec = importlib.util.spec_from_file_location("race", os.path.join(ROOT, "tools", "race.py"))
    race = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(race)
    return race


def cpu_class():
    """`AMD family 25 model 17 (AVX-512)`: what tells CPU classes apart, from /proc/cpuinfo."""
    info = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if ":" in line:
                k, v = line.split(":", 1)
                info.setdefault(k.strip(), v.strip())
            if not line.strip() and info:
                break
    vendor = {"AuthenticAMD": "AMD", "GenuineIntel": "Intel"}.get(info.get("vendor_id"), "?")
    flags = info.get("flags", "").split()
    wide = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{vendor} family {info.get('cpu family')} model {info.get('model')} ({wide})"


def table():
    """The rows of the table "Speed guard" in docs/performance.md."""
    with open(os.path.join(ROOT, "docs", "performance.md")) as f:
        text = f.read()
    start = text.find("## Speed guard")
    rows = []
    if start < 0:
        return rows
    for line in text[start:].splitlines()[1:]:
        if line.startswith("## "):
            break
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) >= 6 and re.fullmatch(r"[0-9a-f]{7,40}", cells[2]):
            rows.append({"class": cells[0], "code": cells[1], "reference": cells[2],
                         "vs_reference": float(cells[3].rstrip("x")),
                         "vs_gigantua": float(cells[4].rstrip("x"))})
    return rows


def reference_binary(commit):
    """The release binary of `commit`, built once into target/guard/<commit>."""
    tree = os.path.join(ROOT, "target", "guard", commit)
    binary = os.path.join(tree, "target", "release", "perft")
    if os.path.exists(binary):
        return binary
    if not os.path.exists(tree):
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", tree, commit],
                       check=True, stdout=subprocess.DEVNULL)
    print(f"building the reference {commit} (several minutes, once) ...", file=sys.stderr)
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "perft"], cwd=tree, check=True)
    return binary


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gigantua", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="the default depths, not --deep's")
    ap.add_argument("--perft", default=os.path.join(ROOT, "target", "release", "perft"))
    ap.add_argument("--ours-args", default="", help='the code path timed, e.g. "--simd avx2"')
    ap.add_argument("--reference", help="a commit to time against instead of the table's")
    a = ap.parse_args()
    for flag, path in (("--gigantua", a.gigantua), ("--perft", a.perft)):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            sys.exit(f"{flag} {path}: not an executable file")
    race = load_race()
    klass, code = cpu_class(), a.ours_args.strip() or "default"
    row = next((r for r in table() if r["class"] == klass and r["code"] == code), None)
    commit = a.reference or (row and row["reference"])
    if not commit:
        sys.exit("no row for this CPU class and code in docs/performance.md: give --reference COMMIT")
    extra = a.ours_args.split()
    engines = {
        "ours": race.ours(a.perft, extra),
        "reference": race.ours(reference_binary(commit), extra),
        "gigantua": race.gigantua(a.gigantua),
    }
    total = race.timed(engines, race.chosen_positions(not a.quick), a.rounds)
    vs_ref = total["reference"] / total["ours"]
    vs_giga = total["gigantua"] / total["ours"]
    # The reference's own ratio to Gigantua in this run: a row records it (docs/performance.md,
    # "Speed guard"), and where it fell as far as ours, the guest slowed us both.
    ref_giga = total["gigantua"] / total["reference"]
    print(f"class {klass}, code {code}, reference {commit}, {a.rounds} rounds"
          f"{', quick' if a.quick else ', deep'}")
    print(f"vs reference {vs_ref:.3f}x, vs gigantua {vs_giga:.3f}x"
          f" (the reference vs gigantua {ref_giga:.3f}x)")
    if row is None:
        print(f"no row for this class and code in docs/performance.md; to record (vs reference"
              f" 1.000x where the hot source is the reference's; vs gigantua the reference's own,"
              f" averaged over runs):\n"
              f"| {klass} | {code} | {commit} | {vs_ref:.3f}x | {ref_giga:.3f}x | <date, commit> |")
        return
    dropped = False
    for name, now, then in (("vs reference", vs_ref, row["vs_reference"]),
                            ("vs gigantua", vs_giga, row["vs_gigantua"])):
        verdict = "DROP" if now < then * (1 - TOLERANCE) else "ok"
        dropped |= verdict == "DROP"
        print(f"{name}: {now:.3f}x, recorded {then:.3f}x: {verdict}")
    sys.exit(1 if dropped else 0)


if __name__ == "__main__":
    main()
