"""Deflate implementations compared on the server's records, in one run (issue 20): zlib at every
level, ISA-L's igzip at 0-3 and libdeflate at 1-12, each on 1 and 2 threads, with the compressed
size relative to zlib level 6 on the same records, measured in the same run.

    swift build -c release --package-path Benchmarks --product deflate-ceiling
    python3 Benchmarks/deflate_compare.py [--duration 3] [--rounds 3] [--json out.json]

Each configuration runs `deflate-ceiling` (which first checks that its output inflates back to the
records); rounds go round-robin over all configurations so a drift in the machine's speed spreads
over all of them, and the table shows the median MB/s per configuration.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (implementation, pattern, levels): the patterns each one can serve (see deflate-ceiling --help).
CANDIDATES = [
    ("zlib", "stream", range(1, 10)),
    ("zlib", "primed", [1, 6]),
    ("isal", "stream", range(0, 4)),
    ("isal", "primed", range(0, 4)),
    ("libdeflate", "object", range(1, 13)),
]


def run(binary: Path, implementation: str, pattern: str, level: int, threads: int, duration: float) -> dict:
    command = [str(binary), "--implementation", implementation, "--pattern", pattern, "--level", str(level),
               "--threads", str(threads), "--duration", str(duration), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=duration * 4 + 60)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=str(HERE / ".build" / "release" / "deflate-ceiling"))
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per configuration and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="write every measurement here")
    args = parser.parse_args()
    binary = Path(args.binary)
    if not binary.is_file():
        sys.exit(f"{binary} missing: swift build -c release --package-path Benchmarks --product deflate-ceiling")

    configurations = [(i, p, level, t) for i, p, levels in CANDIDATES for level in levels for t in (1, 2)]
    measured: dict[tuple, list[dict]] = {c: [] for c in configurations}
    for round_ in range(args.rounds):
        for n, configuration in enumerate(configurations):
            print(f"round {round_ + 1}/{args.rounds}, {n + 1}/{len(configurations)}: {configuration}",
                  file=sys.stderr, flush=True)
            measured[configuration].append(run(binary, *configuration, args.duration))

    def median(configuration, key):
        return statistics.median(r[key] for r in measured[configuration])

    zlib6 = ("zlib", "stream", 6, 2)
    ceiling = median(zlib6, "payloadMBPerSecond")
    zlib_ratio = median(zlib6, "compressionRatio")
    print(f"\nzlib level 6 (stream), 2 threads: {ceiling:.1f} MB/s, ratio {zlib_ratio:.2f}:1; "
          f"medians of {args.rounds} rounds of {args.duration:g} s\n")
    print("| implementation | pattern | level | MB/s, 1 thread | MB/s, 2 threads | × zlib-6 (2 threads) | size vs zlib-6 |")
    print("|---|---|---|---|---|---|---|")
    for implementation, pattern, levels in CANDIDATES:
        for level in levels:
            one = median((implementation, pattern, level, 1), "payloadMBPerSecond")
            two = median((implementation, pattern, level, 2), "payloadMBPerSecond")
            ratio = median((implementation, pattern, level, 2), "compressionRatio")
            size = zlib_ratio / ratio - 1  # compressed bytes per payload byte, against zlib-6's
            print(f"| {implementation} | {pattern} | {level} | {one:.1f} | {two:.1f} | {two / ceiling:.2f} | "
                  f"{size * 100:+.1f} % |")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"rounds": args.rounds, "duration": args.duration,
             "measurements": [{"configuration": list(c), "runs": r} for c, r in measured.items()]}, indent=1))


if __name__ == "__main__":
    main()
