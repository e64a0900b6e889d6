"""User source positions from the `loc(...)` information of TTIR text.

The C++ core names the user's file:line whenever it knows the op an error is
about. When it can only point into the TTIR text itself (it stopped reading
before the op's `loc(...)`, e.g. at an op it does not know), this module
finds the op's location on that TTIR line and resolves it as MLIR prints it:
aliases (`#loc12`), names around a location (`loc("offs"(#loc3))`), call
sites from inlined helpers (`callsite(#callee at #caller)`: the caller, which
is the line in the user's kernel) and fused locations (the first known part).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_ALIAS_DEF = re.compile(r"^(#loc\d*)\s*=\s*loc\((.*)\)\s*$")
_TRAILING_LOC = re.compile(r"loc\((.*)\)\s*$")
_FILE_LINE_COL = re.compile(r'^"((?:[^"\\]|\\.)*)":(\d+):(\d+)$')
_NAMED = re.compile(r'^"(?:[^"\\]|\\.)*"\((.*)\)$')
_MAX_DEPTH = 64  # aliases can refer to aliases; bound the walk on malformed text


@dataclass(frozen=True)
class SourcePosition:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class TtirLocations:
    """The location aliases of one TTIR text, and resolution of positions."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.aliases: dict[str, str] = {}
        for line in self.lines:
            m = _ALIAS_DEF.match(line.strip())
            if m:
                self.aliases[m.group(1)] = m.group(2)

    def user_position_of_line(self, line_number: int) -> SourcePosition | None:
        """The user position of the op written on 1-based TTIR line
        `line_number` (its trailing `loc(...)`), or None."""
        if not 1 <= line_number <= len(self.lines):
            return None
        line = self.lines[line_number - 1]
        m = _TRAILING_LOC.search(line)
        if not m:
            return None
        return self.resolve(m.group(1))

    def resolve(self, body: str, depth: int = 0) -> SourcePosition | None:
        """Resolves the inside of a `loc(...)` to a user position."""
        body = body.strip()
        if depth > _MAX_DEPTH or not body or body == "unknown":
            return None
        if body.startswith("#loc"):
            target = self.aliases.get(body)
            return None if target is None else self.resolve(target, depth + 1)
        m = _FILE_LINE_COL.match(body)
        if m:
            return SourcePosition(m.group(1), int(m.group(2)), int(m.group(3)))
        if body.startswith("callsite(") and body.endswith(")"):
            callee, caller = _split_callsite(body[len("callsite("):-1])
            # The caller is the user's line; the callee is inside the helper
            # (often triton/language/standard.py).
            return self.resolve(caller, depth + 1) or self.resolve(callee, depth + 1)
        if body.startswith("fused[") or body.startswith("fused<"):
            inner = body[body.index("[") + 1:body.rindex("]")] if "[" in body else ""
            for part in _split_top_level(inner):
                position = self.resolve(part, depth + 1)
                if position:
                    return position
            return None
        m = _NAMED.match(body)
        if m:
            return self.resolve(m.group(1), depth + 1)
        if body.startswith("loc(") and body.endswith(")"):
            return self.resolve(body[4:-1], depth + 1)
        return None


def _split_top_level(text: str, separator: str = ",") -> list[str]:
    parts, depth, current, in_string = [], 0, [], False
    i = 0
    while i < len(text):
        c = text[i]
        if in_string:
            current.append(c)
            if c == "\\" and i + 1 < len(text):
                current.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            current.append(c)
        elif c in "([<":
            depth += 1
            current.append(c)
        elif c in ")]>":
            depth -= 1
            current.append(c)
        elif c == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    if current:
        parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _split_callsite(text: str) -> tuple[str, str]:
    """'A at B' at the top level -> (A, B)."""
    depth, in_string = 0, False
    for i, c in enumerate(text):
        if in_string:
            if c == '"' and text[i - 1] != "\\":
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "([<":
            depth += 1
        elif c in ")]>":
            depth -= 1
        elif depth == 0 and text.startswith(" at ", i):
            return text[:i], text[i + 4:]
    return text, ""
