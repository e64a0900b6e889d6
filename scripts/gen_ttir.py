#!/usr/bin/env python3
"""Generates the TTIR corpus tests/ttir/ from the kernel suite (tests/kernels/).

For every case it writes
  tests/ttir/<case>.ttir           str(module): named values and loc(...) info
  tests/ttir/<case>.nodebug.ttir   module.str_nodebug(): %argN / %N, no locs
and tests/ttir/MANIFEST.json describing every case's launch and arguments.

Usage:
  scripts/gen_ttir.py                 regenerate tests/ttir/
  scripts/gen_ttir.py --check         regenerate into a temp dir; exit 1 and list
                                      the files that differ, are missing or extra
  scripts/gen_ttir.py --only NAME...  regenerate only these cases (no cleanup)

How the TTIR is produced (PyPI triton 3.6.0, no GPU needed): the NVIDIA
backend for GPUTarget("cuda", 90, 32) builds the module with
`ASTSource.make_ir` and runs only its "ttir" stage (inliner, tensor-pointer
rewrite, canonicalize, combine, broadcast reordering, CSE, symbol DCE, loop
unroll). The ttgir and later stages are never run.

How arguments are specialized: exactly as Triton's JIT does at a launch, by
running Triton's own code for it. `create_function_from_signature` builds the
same binder that `JITFunction.run` uses (it calls the native
`specialize_impl` on each argument) and `JITFunction._pack_args` turns its
result into the signature, constexprs and attributes that `ASTSource` takes.
So in 3.6:
  - a pointer whose address is a multiple of 16 gets `tt.divisibility = 16`;
    the suite's arguments stand for device buffers, which every tmetal runtime
    must allocate 16-byte aligned (so the address given to Triton is 0);
  - an integer scalar that is a multiple of 16 gets `tt.divisibility = 16`;
  - an integer scalar equal to 1 becomes a constexpr, folded into the code and
    removed from the function's arguments (so TTIR argument positions can
    differ from Python signature positions: see `ttir_index` in the manifest);
  - ints are i32 when they fit, else i64; floats are fp32 and never
    specialized; constexpr parameters never appear in the TTIR.

Paths in loc(...) are rewritten so that the files do not depend on the
machine: files inside the repository become relative to the repository root
("tests/kernels/reductions.py"), files of the installed Triton package become
"triton/<path inside the package>" ("triton/language/standard.py").
"""
from __future__ import annotations

import argparse
import filecmp
import json
import os
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
KERNELS_DIR = REPO_ROOT / "tests" / "kernels"
TTIR_DIR = REPO_ROOT / "tests" / "ttir"
MANIFEST = "MANIFEST.json"

# The Triton JIT must compile, not interpret, the kernels.
os.environ.pop("TRITON_INTERPRET", None)
sys.path.insert(0, str(KERNELS_DIR))

import numpy as np  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton._C.libtriton import ir  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler.compiler import ASTSource, make_backend  # noqa: E402
from triton.runtime.jit import create_function_from_signature  # noqa: E402

import suite  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)
TRITON_PACKAGE_DIR = Path(triton.__file__).resolve().parent


class DeviceBufferStandIn:
    """What Triton's specializer needs from a tensor argument: its element
    type and its address. Address 0 stands for a 16-byte aligned buffer."""

    def __init__(self, dtype):
        self.dtype = dtype

    @staticmethod
    def data_ptr():
        return 0


def specialize(case: suite.Case, backend, args: dict):
    """(options, signature, constexprs, attrs) as JITFunction.run computes
    them for this launch."""
    kernel = case.kernel
    launch_args = []
    for name, value in args.items():
        if isinstance(value, np.ndarray):
            dtype = tl.bfloat16 if name in case.bf16_args else value.dtype
            launch_args.append(DeviceBufferStandIn(dtype))
        else:
            launch_args.append(value)
    binder = create_function_from_signature(kernel.signature, kernel.params, backend)
    launch_kwargs = dict(zip(args, launch_args))
    launch_kwargs.update(case.constexprs)
    options_kwargs = {"num_warps": case.num_warps}
    bound_args, specialization, _ = binder(**launch_kwargs, **options_kwargs)
    return kernel._pack_args(backend, options_kwargs, bound_args, specialization, options_kwargs)


def rewrite_locations(text: str) -> str:
    repo = str(REPO_ROOT) + "/"
    package = str(TRITON_PACKAGE_DIR) + "/"
    # Longest prefix first: the venv holding Triton may live inside the repo.
    for prefix, replacement in sorted([(repo, ""), (package, "triton/")], key=lambda p: -len(p[0])):
        text = text.replace(f'loc("{prefix}', f'loc("{replacement}')
    return text


def compile_to_ttir(case: suite.Case):
    """Returns (debug text, nodebug text, manifest entry) for one case."""
    backend = make_backend(TARGET)
    args = case.args()
    options, signature, constexprs, attrs = specialize(case, backend, args)
    src = ASTSource(case.kernel, signature, constexprs, attrs)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    codegen_fns = backend.get_codegen_implementation(options)
    module_map = backend.get_module_map()
    module = src.make_ir(TARGET, options, codegen_fns, module_map, context)
    stages = {}
    backend.add_stages(stages, options, src.language)
    module = stages["ttir"](module, {})
    debug_text = rewrite_locations(str(module))
    nodebug_text = module.str_nodebug()
    if 'loc("/' in debug_text:
        raise RuntimeError(f"{case.name}: an absolute path is left in the TTIR locations")
    return debug_text, nodebug_text, manifest_entry(case, args, signature, attrs)


def manifest_entry(case: suite.Case, args: dict, signature: dict, attrs: dict) -> dict:
    entries = []
    ttir_index = 0
    for position, param in enumerate(case.params(args)):
        entry = {"name": param.name, "kind": param.kind, "dtype": param.dtype, "output": param.is_output}
        # The argument attributes Triton put on the TTIR function, e.g.
        # {"tt.divisibility": 16}.
        for attr_name, attr_value in attrs.get((position, ), []):
            entry.setdefault("attrs", {})[attr_name] = attr_value
        # Triton turns an integer argument equal to 1 into a constexpr.
        specialized_away = signature[param.name] == "constexpr"
        if param.kind == "constexpr":
            entry["value"] = _json_value(case.constexprs[param.name])
        elif specialized_away:
            entry["value"] = _json_value(args[param.name])
        if param.kind == "constexpr" or specialized_away:
            entry["ttir_index"] = None
        else:
            entry["ttir_index"] = ttir_index
            ttir_index += 1
        if param.kind == "pointer":
            entry["shape"] = list(args[param.name].shape)
        entries.append(entry)
    return {
        "kernel": case.kernel.__name__,
        "grid": list(case.grid),
        "num_warps": case.num_warps,
        "args": entries,
    }


def format_manifest(manifest: dict) -> str:
    """JSON, one case per block and one argument per line, keys sorted, so
    that diffs of the corpus stay readable."""
    blocks = []
    for name in sorted(manifest):
        entry = manifest[name]
        lines = [f"  {json.dumps(name)}: {{"]
        lines += [f"    {json.dumps(k)}: {json.dumps(entry[k])}," for k in sorted(entry) if k != "args"]
        lines.append('    "args": [')
        lines.append(",\n".join("      " + json.dumps(a, sort_keys=True) for a in entry["args"]))
        lines.append("    ]")
        lines.append("  }")
        blocks.append("\n".join(lines))
    return "{\n" + ",\n".join(blocks) + "\n}\n"


def _json_value(value):
    if isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def generate(out_dir: Path, only: list[str] | None = None) -> list[Path]:
    """Writes the corpus into out_dir; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    manifest = {}
    for case in suite.all_cases():
        if only and case.name not in only:
            continue
        debug_text, nodebug_text, entry = compile_to_ttir(case)
        for suffix, text in ((".ttir", debug_text), (".nodebug.ttir", nodebug_text)):
            path = out_dir / f"{case.name}{suffix}"
            path.write_text(text)
            written.append(path)
        manifest[case.name] = entry
    if not only:
        path = out_dir / MANIFEST
        path.write_text(format_manifest(manifest))
        written.append(path)
    return written


def corpus_files(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir() if p.name.endswith(".ttir") or p.name == MANIFEST}


def check() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        generate(fresh)
        new = corpus_files(fresh)
        old = corpus_files(TTIR_DIR) if TTIR_DIR.is_dir() else set()
        problems = [f"missing: tests/ttir/{n}" for n in sorted(new - old)]
        problems += [f"extra: tests/ttir/{n}" for n in sorted(old - new)]
        problems += [
            f"differs: tests/ttir/{n}" for n in sorted(new & old)
            if not filecmp.cmp(fresh / n, TTIR_DIR / n, shallow=False)
        ]
    if problems:
        print("tests/ttir/ is out of date; run scripts/gen_ttir.py and commit the result:")
        for p in problems:
            print("  " + p)
        return 1
    print(f"tests/ttir/ is up to date ({len(new)} files)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed corpus, write nothing")
    parser.add_argument("--only", nargs="+", metavar="CASE", help="regenerate only these cases")
    parser.add_argument("--out", type=Path, default=TTIR_DIR, help="output directory (default tests/ttir)")
    opts = parser.parse_args()
    if opts.check:
        return check()
    if not opts.only:
        # A full run replaces the corpus: remove files of cases that are gone.
        if opts.out.is_dir():
            for name in corpus_files(opts.out):
                (opts.out / name).unlink()
    written = generate(opts.out, opts.only)
    print(f"wrote {len(written)} files to {opts.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
