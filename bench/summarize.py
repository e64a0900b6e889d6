#!/usr/bin/env python3
"""Markdown tables from the GPU benchmark results (bench/gpu_bench.py), for
docs/performance.md and the README.

  bench/summarize.py [PATH...] [--output FILE]

PATH is a result JSON (layouts.json, graph.json, suite.json) or a folder
holding them (default bench/results). Cells read "time us, GB/s"; "% copy" is
the fraction of the device-to-device copy bandwidth measured in the same run;
a speedup is the baseline's time over tmetal's (above 1: tmetal is faster).
Shortfalls are marked: a speedup below 1.00 (as shown, to two decimals) is
bold and says "shortfall", a wrong result says "WRONG", a failure "FAILED",
a case left out for time "skipped".
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

BENCHMARKS = ("layouts", "graph", "suite")
LAYOUTS = ("DEFAULT", "ROW_MAJOR", "COLUMN_MAJOR", "TILED", "COALESCED")


def fmt_time(us) -> str:
    return "-" if us is None else f"{us:.1f} us"


def fmt_cell(us, gbs) -> str:
    if us is None:
        return "-"
    return f"{us:.1f} us, {gbs:.0f} GB/s" if gbs is not None else fmt_time(us)


def fmt_pct(value) -> str:
    return "-" if value is None else f"{value:.0f}%"


def fmt_speedup(value, against: str = "") -> str:
    if value is None:
        return "-"
    text = f"{value:.2f}x" + (f" vs {against}" if against else "")
    if float(f"{value:.2f}") < 1.0:  # as shown: 0.996 reads 1.00x and is no shortfall
        return f"**{value:.2f}x**" + (f" vs {against}" if against else "") + " (shortfall)"
    return text


def fmt_mb(nbytes) -> str:
    if nbytes is None:
        return "-"
    return f"{nbytes / 1e6:.1f}" if nbytes >= 1e5 else f"{nbytes / 1e6:.3f}"


def cell_text(text: str) -> str:
    """A free-text cell: no pipes or newlines, at most 120 characters."""
    text = " ".join(str(text).replace("|", "/").split())
    return text if len(text) <= 120 else text[:117] + "..."


def status_note(row: dict, correct_key: str = "correct", check_key: str = "check") -> str:
    status = row.get("status")
    if status == "skipped":
        return "skipped"
    if status == "running":
        return "FAILED: did not finish (the process was stopped)"
    if row.get("error"):
        return "FAILED: " + cell_text(row["error"])
    if row.get(correct_key) is False:
        return "WRONG: " + cell_text(row.get(check_key, ""))
    return "ok"


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def render_environment(doc: dict) -> str:
    env = doc.get("environment", {})
    parts = [f"{env.get('device', 'unknown device')}", f"{str(env.get('date', '?'))[:10]}",
             f"tmetal {env.get('commit', 'unknown')}"]
    versions = []
    for key, label in (("cuda_driver", "CUDA driver"), ("torch_cuda", "torch CUDA"), ("nvrtc", "NVRTC"),
                       ("torch", "torch"), ("triton", "Triton"), ("cupy", "CuPy")):
        if env.get(key):
            versions.append(f"{label} {env[key]}")
    line = "Measured on " + ", ".join(parts)
    if versions:
        line += "; " + ", ".join(versions)
    bw = doc.get("copy_bandwidth_gbs")
    if bw:
        line += f". Device-to-device copy: {bw:.0f} GB/s (read + write)"
    settings = doc.get("settings", {})
    if settings.get("hardware_profile"):
        line += f"; tmetal hardware profile {settings['hardware_profile']}"
    line += "."
    if settings.get("timing"):  # the L2 flush before each run moves large reads by several percent
        line += f" Timing: {settings['timing']}."
    if (settings.get("rounds") or 1) > 1:
        line += (f" Rounds: {settings['rounds']} a side, the two taking turns to go first; each time is the median "
                 f"of its side's rounds, whose range the last column gives.")
    return line


def coalesced_vs_best_other(by_layout: dict):
    """(best other policy, its time over COALESCED's) for one dtype and size,
    among correct results; DEFAULT resolves to COALESCED, so it is no other."""
    coalesced = by_layout.get("COALESCED", {})
    others = {l: r["time_us"] for l, r in by_layout.items()
              if l not in ("COALESCED", "DEFAULT", "torch.sum") and r.get("time_us") and r.get("correct", True)}
    if not others or not coalesced.get("time_us") or not coalesced.get("correct", True):
        return None
    best = min(others, key=others.get)
    return best, others[best] / coalesced["time_us"]


def layout_groups(rows: list) -> dict:
    groups: dict[tuple, dict] = {}
    for r in rows:
        groups.setdefault((r["dtype"], r["size"]), {})[r["layout"]] = r
    return groups


def render_layouts(doc: dict) -> str:
    rows = doc.get("results", [])
    present = [l for l in LAYOUTS if any(r.get("layout") == l for r in rows)]
    baseline = any(r.get("layout") == "torch.sum" for r in rows)
    groups = layout_groups(rows)
    head = ["dtype", "size", "MB"] + present + (["torch.sum"] if baseline else []) + [
        "COALESCED % copy", "COALESCED vs best other"]
    lines = ["### Layout policies: row sum", "", render_environment(doc), "",
             "| " + " | ".join(head) + " |", "| " + " | ".join(["---", "---"] + ["---:"] * (len(head) - 2)) + " |"]
    for (dtype, size), by_layout in groups.items():
        any_row = next(iter(by_layout.values()))
        cells = [dtype, size, f"{any_row.get('mbytes', 0):.1f}"]
        for layout in present + (["torch.sum"] if baseline else []):
            r = by_layout.get(layout)
            if r is None:
                cells.append("-")
            elif r.get("status") == "skipped":
                cells.append("skipped")
            elif r.get("status") == "running":
                cells.append("FAILED")
            elif r.get("error"):
                cells.append("FAILED")
            else:
                cell = fmt_cell(r.get("time_us"), r.get("gbs"))
                cells.append(cell + (" WRONG" if r.get("correct") is False else ""))
        coalesced = by_layout.get("COALESCED", {})
        cells.append(fmt_pct(coalesced.get("pct_copy")))
        best = coalesced_vs_best_other(by_layout)
        cells.append(fmt_speedup(best[1], best[0]) if best else "-")
        lines.append("| " + " | ".join(cells) + " |")
    failures = [r for r in rows if r.get("error") and r.get("status") != "skipped"]
    if failures:
        lines.append("")
    for r in failures:
        lines.append(f"- {r['dtype']} {r['size']} {r['layout']}: FAILED: {cell_text(r['error'])}")
    return "\n".join(lines) + "\n"


def render_graph(doc: dict) -> str:
    rows = doc.get("results", [])
    head = ["op", "dtype", "shape", "axes", "stages (blocks x threads)", "tmetal", "% copy", "torch", "torch % copy",
            "vs torch", "check"]
    lines = ["### Graph reductions: planner stage kernels vs torch", "", render_environment(doc), "",
             "| " + " | ".join(head) + " |",
             "| " + " | ".join(["---"] * 5 + ["---:"] * 5 + ["---"]) + " |"]
    for r in rows:
        stages = " + ".join(f"{s['threadgroups']}x{s['threads']}" for s in r.get("stages", [])) or "-"
        cells = [r["op"], r["dtype"], "x".join(str(d) for d in r["shape"]), ",".join(str(a) for a in r["axes"]),
                 stages, fmt_cell(r.get("tmetal_us"), r.get("tmetal_gbs")), fmt_pct(r.get("tmetal_pct_copy")),
                 fmt_cell(r.get("torch_us"), r.get("torch_gbs")), fmt_pct(r.get("torch_pct_copy")),
                 fmt_speedup(r.get("speedup_vs_torch")), status_note(r)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(graph_headline(doc))
    return "\n".join(lines) + "\n"


def graph_headline(doc: dict) -> str:
    """Counts, and the geometric mean of the speedups of the correct cases."""
    rows = doc.get("results", [])
    speedups = [r["speedup_vs_torch"] for r in rows if r.get("speedup_vs_torch") and r.get("correct")]
    correct = sum(1 for r in rows if r.get("correct"))
    summary = f"{len(rows)} cases, {correct} correct, {len(speedups)} correct and timed"
    if speedups:
        summary += (f"; geometric mean vs torch {geomean(speedups):.2f}x; slower than torch in "
                    f"{sum(1 for s in speedups if s < 1.0)}")
    return summary + "."


def render_suite(doc: dict) -> str:
    rows = sorted(doc.get("results", []), key=lambda r: (r.get("source") != "large", r["case"]))
    rounds = any(r.get("tmetal_us_rounds") or r.get("triton_us_rounds") for r in rows)
    head = ["case", "MB", "tmetal", "% copy", "Triton", "Triton % copy", "vs Triton", "check"]
    head += ["rounds: tmetal; Triton (us)"] if rounds else []
    lines = ["### Kernel suite: tmetal CUDA target vs Triton", "", render_environment(doc), "",
             "| " + " | ".join(head) + " |",
             "| " + " | ".join(["---"] + ["---:"] * 6 + ["---"] + (["---:"] if rounds else [])) + " |"]
    for r in rows:
        if r.get("status") == "skipped":
            check = "skipped"
        elif r.get("status") == "running":
            check = "FAILED: did not finish (the process was stopped)"
        elif r.get("tmetal_error") or (r.get("error") and not r.get("triton_error")):
            check = "FAILED: " + cell_text(r.get("tmetal_error") or r.get("error"))
        elif r.get("tmetal_correct") is False:
            check = "WRONG: " + cell_text(r.get("tmetal_check", ""))
        else:
            check = "ok"
        if r.get("triton_error"):
            check += "; Triton FAILED: " + cell_text(r["triton_error"])
        elif r.get("triton_correct") is False:
            check += "; Triton WRONG"
        name = r["case"] + (" (large)" if r.get("source") == "large" else "")
        cells = [name, fmt_mb(r.get("bytes")), fmt_cell(r.get("tmetal_us"), r.get("tmetal_gbs")),
                 fmt_pct(r.get("tmetal_pct_copy")), fmt_cell(r.get("triton_us"), r.get("triton_gbs")),
                 fmt_pct(r.get("triton_pct_copy")), fmt_speedup(r.get("speedup_vs_triton")), check]
        if rounds:
            cells.append("; ".join(fmt_range(r.get(f"{side}_us_rounds")) for side in ("tmetal", "triton")))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(suite_headline(doc))
    return "\n".join(lines) + "\n"


def fmt_range(times) -> str:
    """The range of a side's rounds, `4.54-4.61`; `-` without rounds."""
    return f"{min(times):.2f}-{max(times):.2f}" if times else "-"


def suite_headline(doc: dict) -> str:
    rows = doc.get("results", [])
    parts = [f"{len(rows)} cases, {sum(1 for r in rows if r.get('tmetal_correct'))} correct on tmetal"]
    for source, label in (("large", "larger configurations"), ("suite", "suite cases")):
        s = [r["speedup_vs_triton"] for r in rows
             if r.get("source") == source and r.get("speedup_vs_triton") and r.get("tmetal_correct")]
        if s:
            parts.append(f"geometric mean vs Triton, {label}: {geomean(s):.2f}x ({sum(1 for v in s if v < 1.0)} "
                         f"of {len(s)} slower)")
    return "; ".join(parts) + "."


def layouts_headline(doc: dict) -> str:
    rows = doc.get("results", [])
    ok = sum(1 for r in rows if r.get("status") == "ok")
    speedups = [b[1] for b in map(coalesced_vs_best_other, layout_groups(rows).values()) if b]
    text = f"{len(rows)} cases, {ok} ok"
    if speedups:
        text += (f"; COALESCED vs the best other policy: geometric mean {geomean(speedups):.2f}x, "
                 f"from {min(speedups):.2f}x to {max(speedups):.2f}x")
    return text + "."


HEADLINES = {"layouts": layouts_headline, "graph": graph_headline, "suite": suite_headline}


def headline_paths(paths) -> str:
    """One line per benchmark, for a terminal."""
    docs = load_paths(paths)
    if not docs:
        return "No GPU benchmark results found (not measured yet)."
    return "\n".join(f"{d.get('benchmark')}: {HEADLINES[d['benchmark']](d)}" for d in docs
                     if d.get("benchmark") in HEADLINES)


RENDERERS = {"layouts": render_layouts, "graph": render_graph, "suite": render_suite}


def render_docs(docs: list[dict]) -> str:
    docs = sorted(docs, key=lambda d: BENCHMARKS.index(d["benchmark"]) if d.get("benchmark") in BENCHMARKS else 9)
    parts = []
    for doc in docs:
        renderer = RENDERERS.get(doc.get("benchmark"))
        if renderer is None:
            raise ValueError(f"not a GPU benchmark result: benchmark={doc.get('benchmark')!r}")
        parts.append(renderer(doc))
    return "\n".join(parts)


def load_paths(paths) -> list[dict]:
    docs = []
    for p in map(Path, paths):
        files = [p / f"{b}.json" for b in BENCHMARKS if (p / f"{b}.json").is_file()] if p.is_dir() else [p]
        for f in files:
            docs.append(json.loads(f.read_text()))
    return docs


def render_paths(paths) -> str:
    docs = load_paths(paths)
    if not docs:
        return "No GPU benchmark results found (not measured yet).\n"
    return render_docs(docs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=[str(Path(__file__).resolve().parent / "results")],
                        help="result JSONs or folders holding them (default bench/results)")
    parser.add_argument("--output", help="write the Markdown here instead of standard output")
    args = parser.parse_args(argv)
    text = render_paths(args.paths)
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
