"""Cold start of ``plistspec from-py`` (and ``call``) on a plain module, over bare Python.

Goal (python-schema.md §7): < ~100 ms over a bare interpreter for ``from-py`` on a plain
module. Prints medians of N runs; numbers, not pass/fail.

    python bench/bench_from_py.py [N]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLAIN = '''
def get_weather(city: str, units: str = "metric", days: int = 1) -> str:
    """Get the weather.

    Args:
        city: Name of the city.
        units: metric or imperial.
        days: How many days.
    """
    return city
'''


def median_ms(cmd: list[str], cwd: str, n: int, stdin: str | None = None) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(
            cmd, cwd=cwd, input=stdin, capture_output=True, text=True, check=False, timeout=600
        )
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    with tempfile.TemporaryDirectory() as d:
        Path(d, "plainmod.py").write_text(PLAIN)
        py = sys.executable
        bare = median_ms([py, "-c", "pass"], d, n)
        rows = [
            (
                "from-py -t ir",
                [py, "-m", "plistspec", "from-py", "plainmod:get_weather", "-t", "ir"],
                None,
            ),
            ("from-py (elisp)", [py, "-m", "plistspec", "from-py", "plainmod:get_weather"], None),
            (
                "call (as --bridge process runs it)",
                [py, "-P", "-m", "plistspec", "call", "--from", "gptel", "plainmod:get_weather"],
                '{"city": "Oslo"}',
            ),
            ("import click", [py, "-c", "import click"], None),
        ]
        print(f"bare python: {bare:.0f} ms (median of {n})")
        for label, cmd, stdin in rows:
            ms = median_ms(cmd, d, n, stdin)
            print(f"{label:34s} {ms:6.0f} ms   (+{ms - bare:.0f} ms over bare python)")
        print("(the default --bridge worker pays this once per module: bench/bench_bridge.py)")


if __name__ == "__main__":
    main()
