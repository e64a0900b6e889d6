"""End-to-end checks of the `tmetal analyze`, `sample-ops` and `hardware`
commands: the binary prints the golden reports, exits non-zero with a located
diagnostic for each kind of bad input, and writes reproducible sample files.

The binary is $TMETAL_BIN, else build/bin/tmetal (what scripts/test.sh builds).
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"


def tmetal_binary() -> Path:
    path = Path(os.environ.get("TMETAL_BIN", REPO / "build" / "bin" / "tmetal"))
    if not path.is_file():
        pytest.fail(f"tmetal binary not found at {path}; build it first (scripts/setup.sh) or set TMETAL_BIN")
    return path


def run(*args, env=None):
    full_env = {k: v for k, v in os.environ.items() if k != "TMETAL_HARDWARE"}
    full_env.update(env or {})
    return subprocess.run([str(tmetal_binary()), *args], cwd=REPO, capture_output=True, text=True, env=full_env,
                          timeout=60)


@pytest.mark.parametrize("extra,golden", [
    ([], "analyze_sample.txt"),
    (["--verbose"], "analyze_sample_verbose.txt"),
    (["--format", "json"], "analyze_sample.json"),
])
def test_analyze_sample_matches_golden(extra, golden):
    r = run("analyze", "--json", "tests/golden/sample_ops.json", "--hardware", "m3-max", *extra)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (GOLDEN / golden).read_text()


def test_analyze_bad_ops_reports_each_op_and_fails():
    r = run("analyze", "--json", "tests/golden/bad_ops.json", "--hardware", "m3-max")
    assert r.returncode == 1
    assert r.stdout == (GOLDEN / "analyze_bad_ops.txt").read_text()
    assert r.stderr.splitlines() == [
        "tests/golden/bad_ops.json:4:5: error: ops[1] 'spectrum' (tt.fft): unsupported op type 'tt.fft'",
        "tests/golden/bad_ops.json:5:5: error: ops[2] 'axis_out_of_range' (tt.max): axis 2 is out of range for the "
        "rank-2 input [64, 64] (valid: -2..1)",
        "tests/golden/bad_ops.json:6:5: error: ops[3] 'zero_dimension' (tt.sum): input_shapes[0]: dimension 1 of "
        "[64, 0] is 0; dimensions must be positive",
        "tests/golden/bad_ops.json:7:5: error: ops[4] 'symbolic' (tt.mean): input_shapes[0][0] is the symbolic "
        "dimension \"batch\"; only integer dimensions are supported",
    ]


def test_analyze_json_output_file_and_schema(tmp_path):
    out = tmp_path / "report.json"
    r = run("analyze", "--json", "tests/golden/bad_ops.json", "--hardware", "m1", "--format", "json",
            "--output", str(out))
    assert r.returncode == 1
    assert r.stdout == ""
    report = json.loads(out.read_text())
    assert report["schema_version"] == 2
    assert report["hardware"]["id"] == "m1"
    assert [op["status"] for op in report["ops"]] == ["ok", "unsupported", "invalid", "invalid", "invalid", "ok"]
    good = report["ops"][0]
    assert good["is_reduction"] is True
    assert good["layout"]["name"] == "COALESCED" and good["layout"]["value"] == 8
    assert good["plan"]["kind"] == "row"
    for stage in good["plan"]["stages"]:
        compiled = stage["compiled"]
        assert compiled["target"] == "metal" and compiled["policy"] == "COALESCED"
        assert compiled["threads_per_threadgroup"] == 32 * compiled["num_warps"]
        assert compiled["reductions"], compiled
    assert report["summary"]["layout_distribution"] == {
        "DEFAULT": 0, "ROW_MAJOR": 1, "COLUMN_MAJOR": 0, "TILED": 0, "COALESCED": 1}
    assert report["summary"]["coalesced_coverage"] == 1.0


def test_two_stage_and_many_rows_examples():
    r = run("analyze", "--operation", "tt.sum:[1048576]:0", "--hardware", "apple-generic")
    assert r.returncode == 0, r.stderr
    assert "plan:    all reduction, two stages, 48 partials per output" in r.stdout
    assert "stage 1  all_reduce_partials" in r.stdout
    assert "stage 2  reduce_partials_rows" in r.stdout

    r = run("analyze", "--operation", "tt.max:[4194304,32]:1", "--hardware", "apple-generic")
    assert r.returncode == 0, r.stderr
    assert "threadgroup 512 threads (16 SIMD groups): 128 outputs x 8 lanes" in r.stdout
    assert "per thread: 1 trip x 2 loads of a 4-wide vector = up to 8 elements" in r.stdout
    assert "grid: 32768 threadgroups" in r.stdout


def test_four_rows_report_the_compiled_butterfly():
    # The 4 rows of tt.sum:[4,4096]:0 are combined by the compiled stage
    # kernel with a shuffle butterfly; the text states what the JSON's
    # compiled metadata says, and no threadgroup-memory combine of the plan.
    args = ("analyze", "--operation", "tt.sum:[4,4096]:0", "--hardware", "m3-max")
    r = run(*args, "--format", "json")
    assert r.returncode == 0, r.stderr
    stages = json.loads(r.stdout)["ops"][0]["plan"]["stages"]
    text = run(*args).stdout
    butterflies = 0
    for stage in stages:
        c = stage["compiled"]
        assert (f"as compiled: {c['kernel']} (metal, COALESCED, num_warps {c['num_warps']}): "
                f"{c['threads_per_threadgroup']} threads per threadgroup") in text
        for red in c["reductions"]:
            if "butterfly" in red.get("lanes", {}).get("combine", ""):
                butterflies += 1
                assert f"then {red['lanes']['count']} lanes by {red['lanes']['combine']}" in text
    assert butterflies >= 1, stages
    assert "combine (planned" not in text


def test_operation_errors():
    r = run("analyze", "--operation", "tt.sum:[M,512]:1")
    assert r.returncode == 1
    assert r.stderr == ("--operation:1:9: error: symbolic dimension 'M' in --operation; give every dimension as an "
                        "integer\n")
    r = run("analyze", "--operation", "tt.sum:[512,512]:2")
    assert r.returncode == 1
    assert r.stderr == ("--operation:1:1: error: ops[0] (tt.sum): axis 2 is out of range for the rank-2 input "
                        "[512, 512] (valid: -2..1)\n")
    r = run("analyze", "--operation", "tt.sum:[4294967296,4294967296]:0")
    assert r.returncode == 1
    assert "element count of [4294967296, 4294967296] overflows 64 bits" in r.stderr
    r = run("analyze", "--operation", "tt.sum:[0]:0")
    assert r.returncode == 1
    assert "dimension 0 of [0] is 0; dimensions must be positive" in r.stderr
    r = run("analyze")
    assert r.returncode == 1
    assert r.stderr == 'error: give an ops file with --json FILE or an op with --operation "tt.sum:[1024,512]:1"\n'


def test_malformed_json_names_line_and_column(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"ops": [\n  {"type": "tt.sum", "input_shapes": [[4]],\n   "args": {"axis": 0,}}\n]}\n')
    r = run("analyze", "--json", str(bad))
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == (f"{bad}:3:23: error: malformed JSON: syntax error while parsing object key - unexpected "
                        "'}'; expected string literal\n")


def test_hardware_override_and_environment():
    r = run("analyze", "--operation", "tt.sum:[64]:0", env={"TMETAL_HARDWARE": "h100"})
    assert "selected with TMETAL_HARDWARE=h100" in r.stdout
    r = run("analyze", "--operation", "tt.sum:[64]:0", "--hardware", "m2", env={"TMETAL_HARDWARE": "h100"})
    assert "selected with --hardware m2" in r.stdout
    r = run("analyze", "--operation", "tt.sum:[64]:0", "--hardware", "m9")
    assert r.returncode == 1
    assert r.stderr.startswith("error: unknown hardware 'm9' (from --hardware); known: apple-generic, m1, ")


def test_hardware_command_prints_selection_and_table():
    r = run("hardware")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    if os.uname().sysname != "Darwin":
        assert lines[0] == "selected: apple-generic - Generic Apple GPU (M1-class baseline)"
        assert "not running on an Apple-silicon Mac; using the generic Apple profile apple-generic" in lines[1]
    table = {line.split()[0] for line in lines[4:] if line and not line.startswith("*")}
    assert {"m1", "m1-ultra", "m2-max", "m3-pro", "m3-max-30c", "m4-max", "h100", "h200"} <= table


def test_sample_ops_is_reproducible_and_varied(tmp_path):
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    assert run("sample-ops", "--large", "--seed", "7", "--output", str(a)).returncode == 0
    assert a.read_text() == (GOLDEN / "sample_ops.json").read_text()
    assert run("sample-ops", "--seed", "3", "--output", str(b)).returncode == 0
    assert run("sample-ops", "--seed", "3", "--output", str(c)).returncode == 0
    assert b.read_text() == c.read_text()

    basic = json.loads(b.read_text())["ops"]
    large = json.loads(a.read_text())["ops"]
    assert len(basic) >= 8 and len(large) >= 18
    reductions = {"tt.reduce", "tt.sum", "tt.mean", "tt.max", "tt.min", "tt.prod", "tt.argmax", "tt.argmin",
                  "tt.any", "tt.all"}
    for ops in (basic, large):
        shapes = [(len(op["input_shapes"][0]), op.get("args", {}).get("axis"))
                  for op in ops if op["type"] in reductions]
        assert {rank for rank, _ in shapes} >= {1, 2, 3}
        assert any(isinstance(axis, list) and len(axis) > 1 for _, axis in shapes)
        assert any(isinstance(axis, int) for _, axis in shapes)
    # Every generated file analyzes cleanly, and every reduction gets COALESCED.
    r = run("analyze", "--json", str(b), "--format", "json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)["summary"]
    assert summary["analyzed"] == summary["ops"] and summary["coalesced_coverage"] == 1.0
