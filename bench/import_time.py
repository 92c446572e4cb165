"""Time ``import theon.tensor`` in fresh processes (median of N), for one or more checkouts.

    python bench/import_time.py [--n 10] [--module theon.tensor] [DIR ...]

Each DIR is a checkout whose ``theon`` is imported (default: this one).  Runs are
interleaved across checkouts so machine load affects them alike.  The module's
byte code is compiled first (``compileall``), so every process reads ``.pyc``
files as an installed package would.  Also reports bare interpreter start-up.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def once(code: str, where: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(where))
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=where, env=env)
    return time.perf_counter() - t


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dirs", nargs="*", type=Path, default=[ROOT])
    p.add_argument("--n", type=int, default=10)
    p.add_argument("--module", default="theon.tensor")
    args = p.parse_args(argv)
    for d in args.dirs:
        compileall.compile_dir(str(d / "theon"), quiet=1)
    times: dict[Path, list[float]] = {d: [] for d in args.dirs}
    bare: list[float] = []
    for _ in range(args.n):
        bare.append(once("pass", ROOT))
        for d in args.dirs:
            times[d].append(once(f"import {args.module}", d))
    print(f"python start-up: median {statistics.median(bare):.3f} s")
    for d, ts in times.items():
        print(f"import {args.module} [{d}]: median {statistics.median(ts):.3f} s "
              f"(min {min(ts):.3f}, max {max(ts):.3f}, n={len(ts)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
