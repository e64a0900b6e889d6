"""Prints a Markdown table of a compile-time benchmark result (bench/results/compile_time-*.json)."""
import json
import statistics
import sys


def main(path: str) -> None:
    with open(path) as f:
        result = json.load(f)
    rows = [(b["name"].split("/", 1)[1], b["real_time"]) for b in result["benchmarks"] if b.get("run_type") == "iteration"]
    ctx = result["context"]
    print(f"compile time, TTIR -> MSL ({len(rows)} kernels) on {ctx.get('cpu', '?')}, {ctx.get('cores', '?')} cores, "
          f"{ctx['date']}, commit {ctx.get('commit', '?')}")
    times = [t for _, t in rows]
    print(f"median {statistics.median(times):.3f} ms, max {max(times):.3f} ms "
          f"({max(rows, key=lambda r: r[1])[0]}), kernels over 5 ms: {sum(t > 5 for t in times)}")
    print("\n| kernel | ms |\n| --- | ---: |")
    for name, t in sorted(rows, key=lambda r: -r[1]):
        print(f"| {name} | {t:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1])
