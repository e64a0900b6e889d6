"""Errors reach the user as Python exceptions naming the kernel and the
user's Python line, never as a crash of the interpreter."""
from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from triton.runtime.errors import OutOfResources

import triton_metal
from triton_metal import CompileError, TmetalError, errors
from triton_metal._native import core
from triton_metal.ttir_locations import SourcePosition, TtirLocations

import plugin_error_kernels as bad
from conftest import REPO_ROOT


def test_cpp_compile_error_becomes_python_compile_error():
    with pytest.raises(CompileError) as info:
        core()._raise_compile_error_for_test("kernel.py", 12, 5, "something is wrong")
    error = info.value
    assert str(error) == "kernel.py:12:5: error: something is wrong"
    assert (error.file, error.line, error.col, error.reason) == ("kernel.py", 12, 5, "something is wrong")
    assert error.location == "kernel.py:12:5"
    assert isinstance(error, TmetalError) and isinstance(error, RuntimeError)


def test_errors_survive_copy_and_pickle():
    # Triton deep-copies the exception of a kernel that failed to load.
    error = errors.CompileError("k.py:3:1: error: x", file="k.py", line=3, col=1, reason="x", kernel="k")
    for clone in (copy.deepcopy(error), pickle.loads(pickle.dumps(error))):
        assert type(clone) is CompileError and str(clone) == str(error)
        assert (clone.file, clone.line, clone.col, clone.reason, clone.kernel) == ("k.py", 3, 1, "x", "k")


def test_with_kernel_names_the_kernel_once():
    error = errors.CompileError("k.py:3:1: error: x", file="k.py", line=3, col=1, reason="x")
    named = errors.with_kernel(error, "my_kernel")
    assert str(named) == "k.py:3:1: error: x\n  in Triton kernel 'my_kernel'"
    assert named.kernel == "my_kernel" and named.line == 3
    assert errors.with_kernel(named, "my_kernel") is named


def test_unsupported_construct_names_kernel_file_and_line(emulator_driver):
    require_frontend()
    x = triton_metal.tensor(np.ones(64, np.float32))
    out = triton_metal.tensor(np.zeros(64, np.float32))
    with pytest.raises(CompileError) as info:
        bad.inline_asm_kernel[(1, )](x, out, 64, BLOCK=64)
    error = info.value
    line = bad.marker_line("asm")
    assert error.file == bad.__file__ and error.line == line, str(error)
    message = str(error)
    assert message.startswith(f"{bad.__file__}:{line}:"), message
    assert "unsupported op 'tt.elementwise_inline_asm'" in message
    assert "in Triton kernel 'inline_asm_kernel'" in message
    assert error.kernel == "inline_asm_kernel"


def test_code_generator_limits_name_kernel_file_and_line(codegen_emulator):
    # A construct the TTIR reader accepts but the code generator does not
    # lower (a 64-bit atomic add: Metal's device atomics are 32-bit):
    # reported at the tl.atomic_add line.
    a = triton_metal.tensor(np.ones(16, np.int64))
    with pytest.raises(CompileError) as info:
        bad.wide_atomic_kernel[(1, )](a, a)
    error = info.value
    assert (error.file, error.line) == (bad.__file__, bad.marker_line("atomic64")), str(error)
    assert "tt.atomic_rmw add on i64 (Metal's device atomics are 32-bit)" in str(error)
    assert error.kernel == "wide_atomic_kernel"


def test_tiles_past_the_threadgroup_memory_are_out_of_resources(codegen_emulator):
    # A 512x512 float32 tile flattened (1 MB: more pieces than staging
    # takes) is refused: Triton's OutOfResources (which triton.autotune
    # catches) as well as a CompileError at the user's line.
    x = triton_metal.tensor(np.zeros((512, 512), np.float32))
    with pytest.raises(errors.OutOfResourcesError) as info:
        bad.transpose_tiles_kernel[(1, 1)](x, x, 512, BLOCK=512)
    error = info.value
    assert isinstance(error, OutOfResources) and isinstance(error, CompileError)
    assert (error.name, error.required, error.limit) == ("shared memory", 1048576, 32768)
    assert (error.file, error.line) == (bad.__file__, bad.marker_line("flatten")), str(error)
    assert "'tt.reshape': needs 1048576 bytes of threadgroup memory" in str(error)
    assert str(error).endswith("(out of resource: shared memory, Required: 1048576, Hardware limit: 32768)\n"
                               "  in Triton kernel 'transpose_tiles_kernel'"), str(error)
    for clone in (copy.deepcopy(error), pickle.loads(pickle.dumps(error))):
        assert type(clone) is errors.OutOfResourcesError and str(clone) == str(error)
        assert (clone.name, clone.required, clone.limit, clone.line) == ("shared memory", 1048576, 32768, error.line)


def test_triton_frontend_errors_pass_through(emulator_driver):
    # Constructs Triton's frontend rejects (a range that is not a power of
    # two) are reported by Triton, with the kernel's source line.
    from triton.compiler.errors import CompilationError
    x = triton_metal.tensor(np.ones(16, np.float32))
    with pytest.raises(CompilationError, match="power of 2") as info:
        bad.odd_range_kernel[(1, )](x, x, BLOCK=12)
    assert "offs = tl.arange(0, BLOCK)  # MARK:range" in str(info.value)  # the source line, quoted


def test_fp8_arithmetic_names_the_line(emulator_driver):
    # 8-bit floats are storage types: adding two is refused at the user's line.
    x = triton_metal.tensor(np.ones(16, np.float32))
    with pytest.raises(CompileError) as info:
        bad.fp8_arithmetic_kernel[(1, )](x, x, BLOCK=16)
    error = info.value
    assert (error.file, error.line) == (bad.__file__, bad.marker_line("fp8add")), str(error)
    assert "'arith.addf': computes with tensor<16xf8E5M2>: 8-bit floats are storage types" in str(error)


def test_unsupported_construct_in_subprocess_does_not_crash_the_interpreter():
    require_frontend()
    code = f"""
import sys, numpy as np
sys.path.insert(0, {str(REPO_ROOT / 'tests' / 'python')!r})
import triton, triton_metal, plugin_error_kernels as bad
x = triton_metal.tensor(np.ones(64, np.float32))
try:
    bad.inline_asm_kernel[(1,)](x, x, 64, BLOCK=64)
except triton_metal.CompileError as e:
    print("caught", e.line)
"""
    env = dict(os.environ, TRITON_METAL_DEVICE="emulator")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"caught {bad.marker_line('asm')}"


def require_frontend():
    from conftest import require_stage
    require_stage("frontend")


# ---- positions from TTIR loc(...) information ------------------------------

TTIR = """#loc = loc("/u/k.py":10:0)
module {
  tt.func public @k(%x: !tt.ptr<f32> loc("x"(#loc))) attributes {noinline = false} {
    %0 = tt.get_program_id x : i32 loc(#loc1)
    %1 = tt.weird %0 : i32 loc(#loc4)
    %2 = tt.other %0 : i32 loc(#loc6)
    %3 = tt.fused %0 : i32 loc(#loc7)
    %4 = tt.none %0 : i32
    tt.return loc(#loc2)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("/u/k.py":11:24)
#loc2 = loc("/u/k.py":14:4)
#loc3 = loc("/triton/language/standard.py":290:11)
#loc4 = loc(callsite(#loc3 at #loc5))
#loc5 = loc("/u/k.py":12:15)
#loc6 = loc("y"(#loc5))
#loc7 = loc(fused[unknown, #loc2])
"""


@pytest.mark.parametrize("ttir_line, expected", [
    (4, SourcePosition("/u/k.py", 11, 24)),  # alias
    (5, SourcePosition("/u/k.py", 12, 15)),  # call site: the user's caller line, not the helper's
    (6, SourcePosition("/u/k.py", 12, 15)),  # a name around an alias
    (7, SourcePosition("/u/k.py", 14, 4)),  # fused: first known part
    (8, None),  # no location on the line
    (99, None),  # past the end
])
def test_ttir_locations(ttir_line, expected):
    assert TtirLocations(TTIR).user_position_of_line(ttir_line) == expected


def test_alias_cycles_terminate():
    text = "%0 = tt.x loc(#loc1)\n#loc1 = loc(#loc2)\n#loc2 = loc(#loc1)\n"
    assert TtirLocations(text).user_position_of_line(1) is None


def test_errors_inside_ttir_are_moved_to_the_user_line():
    from triton_metal.compiler import locate_in_user_source
    error = CompileError("k.ttir:5:12: error: unsupported op 'tt.weird'", file="k.ttir", line=5, col=12,
                         reason="unsupported op 'tt.weird'")
    moved = locate_in_user_source(error, TTIR, "k.ttir")
    assert (moved.file, moved.line, moved.col) == ("/u/k.py", 12, 15)
    assert str(moved) == "/u/k.py:12:15: error: unsupported op 'tt.weird' (TTIR line 5)"
    # Errors already at a user position are left alone.
    assert locate_in_user_source(moved, TTIR, "k.ttir") is moved
