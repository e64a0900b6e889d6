#!/usr/bin/env python3
"""Compares graph-benchmark runs made with different planner tunings.

  python3 bench/compare_tuning.py RUN.json [RUN.json ...] > tuning.md

Each RUN.json is a `tmetal bench graph --tuning ...` results file; runs are
named by their tuning, or by their file name where two runs share a tuning
(A/B runs of two trees). The table
has one row per case and, for each run, tmetal's share of the measured copy
bandwidth; torch's comes from the first run. Below it, per run: the geometric
mean against torch, the cases slower than torch, and the inputs of at least
256 MB under 90% of copy bandwidth (the targets in docs/performance.md).
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

LARGE_BYTES = 256 * 10**6


def load(path: str) -> tuple[str, dict]:
    doc = json.loads(Path(path).read_text())
    label = doc.get("settings", {}).get("plan_tuning") or Path(path).stem
    rows = {r["key"]: r for r in doc["results"] if r.get("status") == "ok" and r.get("tmetal_us")}
    return label, rows


def render(paths: list[str]) -> str:
    runs = [load(p) for p in paths]
    if len({label for label, _ in runs}) < len(runs):
        runs = [(Path(p).stem, rows) for p, (_, rows) in zip(paths, runs)]
    keys = [k for k in runs[0][1]]
    for _, rows in runs[1:]:
        keys += [k for k in rows if k not in keys]
    out = ["| case | MB | torch % copy | " + " | ".join(label for label, _ in runs) + " |",
           "| --- | ---: | ---: | " + " | ".join("---:" for _ in runs) + " |"]
    for key in keys:
        first = next((rows[key] for _, rows in runs if key in rows), None)
        cells = []
        best = max((rows[key]["tmetal_pct_copy"] for _, rows in runs if key in rows), default=None)
        for _, rows in runs:
            r = rows.get(key)
            if r is None:
                cells.append("-")
                continue
            text = f"{r['tmetal_pct_copy']:.0f}% ({r['speedup_vs_torch']:.2f}x)"
            cells.append(f"**{text}**" if r["tmetal_pct_copy"] == best and len(runs) > 1 else text)
        out.append(f"| {key} | {first['bytes'] / 1e6:.0f} | {first['torch_pct_copy']:.0f}% | " + " | ".join(cells) + " |")
    out.append("")
    out.append("| run | cases | geomean vs torch | slower than torch | >= 256 MB under 90% of copy |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    for label, rows in runs:
        speedups = [r["speedup_vs_torch"] for r in rows.values() if r.get("speedup_vs_torch")]
        geo = math.exp(sum(math.log(x) for x in speedups) / len(speedups)) if speedups else float("nan")
        slower = sum(1 for x in speedups if x < 1.0)
        large = [r for r in rows.values() if r["bytes"] >= LARGE_BYTES]
        short = sum(1 for r in large if r["tmetal_pct_copy"] < 90.0)
        out.append(f"| {label} | {len(rows)} | {geo:.2f}x | {slower} | {short} of {len(large)} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.stdout.write(render(sys.argv[1:]))
