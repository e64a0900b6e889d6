"""Runs the kernel suite through the `tmetal` command-line tool.

For every case, on tests/ttir/<case>.ttir and tests/ttir/<case>.nodebug.ttir:
  tmetal parse FILE                        must exit 0
  tmetal run FILE --device DEVICE --grid X[,Y,Z]
             --arg I=input.npy|SCALAR ... --out I=output.npy ...
then the saved outputs must match the case's NumPy reference within the
case's tolerances.

Argument indices are positions among the arguments of the TTIR function
(`ttir_index` in tests/ttir/MANIFEST.json). They equal the Python signature
positions except that constexpr parameters, and integer arguments equal to 1
(which Triton specializes into constants), are not arguments of the TTIR
function. Every pointer argument is given with --arg (its initial contents,
outputs included: a kernel may leave parts of an output untouched); --out
names the buffers to save after the run. bf16 buffers are .npy files of
uint16 bit patterns. Scalars are written as Python prints them (ints in
decimal, floats as the shortest repr that reads back to the same double);
their types come from the TTIR signature.

The tool is $TMETAL_BIN, or build/bin/tmetal in the repository. The devices
are DEVICES ($TMETAL_SUITE_DEVICES).
"""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import suite

REPO_ROOT = Path(__file__).resolve().parents[2]
TTIR_DIR = REPO_ROOT / "tests" / "ttir"
TMETAL_BIN = Path(os.environ.get("TMETAL_BIN", REPO_ROOT / "build" / "bin" / "tmetal"))
# Execution paths checked against the references. TMETAL_SUITE_DEVICES, a
# comma-separated list, replaces them: "interpreter,cuda" on an NVIDIA machine
# (scripts/gpu_check.sh; the cuda device needs an NVIDIA GPU, docs/cuda.md).
DEVICES = [d.strip() for d in os.environ.get("TMETAL_SUITE_DEVICES", "interpreter,emulator").split(",") if d.strip()]
TTIR_VARIANTS = {"debug": ".ttir", "nodebug": ".nodebug.ttir"}
COMMAND_TIMEOUT_S = 300

CASES = suite.all_cases()
CASE_IDS = [c.name for c in CASES]


def _manifest() -> dict:
    return json.loads((TTIR_DIR / "MANIFEST.json").read_text())


def _tmetal(*args: str) -> subprocess.CompletedProcess:
    if not TMETAL_BIN.exists():
        pytest.fail(f"tmetal binary not found at {TMETAL_BIN} (build it, or set TMETAL_BIN)")
    return subprocess.run([str(TMETAL_BIN), *args], capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S,
                          cwd=REPO_ROOT)


def _describe(proc: subprocess.CompletedProcess) -> str:
    return f"exit {proc.returncode}\ncommand: {' '.join(proc.args)}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"


def scalar_text(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    return repr(float(value))


def run_command(case: suite.Case, entry: dict, ttir: Path, args: dict, work: Path, device: str):
    """The `tmetal run` command line for a case, and {output name: path}."""
    command = ["run", str(ttir), "--device", device, "--grid", ",".join(str(g) for g in case.grid)]
    outputs = {}
    for param in entry["args"]:
        index = param["ttir_index"]
        if index is None:
            continue
        value = args[param["name"]]
        if param["kind"] == "pointer":
            path = work / f"arg{index}.npy"
            np.save(path, value)
            command += ["--arg", f"{index}={path}"]
            if param["output"]:
                out_path = work / f"out{index}.npy"
                command += ["--out", f"{index}={out_path}"]
                outputs[param["name"]] = out_path
        else:
            command += ["--arg", f"{index}={scalar_text(value)}"]
    return command, outputs


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_parse(case):
    for suffix in TTIR_VARIANTS.values():
        proc = _tmetal("parse", str(TTIR_DIR / f"{case.name}{suffix}"))
        assert proc.returncode == 0, _describe(proc)


@pytest.mark.parametrize("variant", list(TTIR_VARIANTS))
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("device", DEVICES)
def test_run_matches_reference(device, case, variant, tmp_path):
    entry = _manifest()[case.name]
    args = case.args()
    expected = case.expected(args)
    ttir = TTIR_DIR / f"{case.name}{TTIR_VARIANTS[variant]}"
    command, outputs = run_command(case, entry, ttir, args, tmp_path, device)
    assert set(outputs) == set(case.outputs), f"manifest outputs {sorted(outputs)} != case outputs {case.outputs}"
    proc = _tmetal(*command)
    assert proc.returncode == 0, _describe(proc)
    problems = []
    for name, path in outputs.items():
        if not path.exists():
            problems.append(f"{name}: tmetal wrote no {path.name}")
            continue
        got = np.load(path)
        if got.dtype != expected[name].dtype:
            problems.append(f"{name}: dtype {got.dtype}, expected {expected[name].dtype}")
            continue
        problem = suite.compare(case, name, got, expected[name])
        if problem:
            problems.append(problem)
    assert not problems, "\n".join(problems) + "\n" + _describe(proc)
