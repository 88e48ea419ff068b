"""Streaming readers for outside trajectory files: one JSON array of states, or JSON Lines; strict state parsing.

Memory stays bounded by the largest single state, never the whole file: a JSON array is split into its
elements by a byte scanner (strings skipped by one regex match each, brackets counted) and each element
is parsed alone by orjson; JSON Lines are read line by line. A state over MAX_STATE_BYTES is refused.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import BinaryIO, Iterator

import orjson

MAX_STATE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 500  # the tokenizer recurses once per nesting level; Python's default limit is 1000 frames
CHUNK_BYTES = 1024 * 1024

_WHITESPACE = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"
# Inside an element: a whole string (escapes included) or one bracket; a lone '"' means the string is cut off.
_NESTED = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|["\[\]{}]', re.DOTALL)
# At the top level of the array: the same, plus the element separator.
_TOP = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|["\[\]{},]', re.DOTALL)
_LONG_DIGIT_RUN = re.compile(rb"\d{19,}")  # orjson turns integers beyond 64 bits into floats; json keeps them
_JSON_KINDS = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number",
               bool: "a boolean", type(None): "null"}


class BadRecord(ValueError):
    """A record (array element or line) that cannot be ingested; `reason` is one line without the file name."""

    def __init__(self, reason: str, position: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.position = position


@dataclass
class RawRecord:
    """One array element (position = 0-based index) or line (position = 1-based line number).

    `error` is set instead of `data` for a line that cannot even be read (too long).
    """

    position: int
    data: bytes
    error: str | None = None


def kind_of(value) -> str:
    return _JSON_KINDS.get(type(value), type(value).__name__)


def parse_state(data: bytes) -> object:
    """Strict JSON (no NaN/Infinity, valid UTF-8), integers beyond 64 bits exact, nesting at most MAX_DEPTH."""
    if _LONG_DIGIT_RUN.search(data):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadRecord(f"not valid UTF-8 (byte {exc.start} of the record)") from None
        try:
            value = json.loads(text, parse_constant=_refuse_constant)
        except RecursionError:
            raise BadRecord(f"nested deeper than {MAX_DEPTH} levels") from None
        except json.JSONDecodeError as exc:
            raise BadRecord(f"invalid JSON: {exc}") from None
    else:
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            message = str(exc)
            if "depth limit" in message:
                raise BadRecord(f"nested deeper than {MAX_DEPTH} levels") from None
            if "UTF-8" in message:
                raise BadRecord(f"not valid UTF-8 ({message})") from None
            raise BadRecord(f"invalid JSON: {message}") from None
    if data.count(b"[") + data.count(b"{") > MAX_DEPTH and nesting_depth(value) > MAX_DEPTH:
        raise BadRecord(f"nested deeper than {MAX_DEPTH} levels")
    return value


def _refuse_constant(name: str):
    raise json.JSONDecodeError(f"{name} is not a JSON number", name, 0)


def nesting_depth(value: object) -> int:
    """Container depth of a parsed value, iteratively; a string holding JSON counts its brackets as depth."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, depth)
            for child in (node.values() if isinstance(node, dict) else node):
                stack.append((child, depth + 1))
        elif isinstance(node, str) and node[:1] in ("[", "{"):
            deepest = max(deepest, depth - 1 + node.count("[") + node.count("{"))
    return deepest


def dump_state(value: object) -> str:
    """Compact JSON text of a parsed state; integers beyond 64 bits are written exactly."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise BadRecord("a string holds a lone UTF-16 surrogate (not valid Unicode)") from None
        return text


def iter_lines(fh: BinaryIO) -> Iterator[RawRecord]:
    """Non-blank lines with their 1-based numbers; a line over MAX_STATE_BYTES comes back with an error."""
    number = 0
    while True:
        line = fh.readline(MAX_STATE_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_STATE_BYTES and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest of the line without holding it
                line = fh.readline(CHUNK_BYTES)
            yield RawRecord(number, b"", f"longer than {MAX_STATE_BYTES} bytes")
            continue
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM):]
        stripped = line.strip(_WHITESPACE)
        if stripped:
            yield RawRecord(number, stripped)


class ArrayScanner:
    """Splits a file holding one JSON array into the bytes of its elements, reading CHUNK_BYTES at a time.

    Positions are file offsets; the buffer holds the file from `base` on, and bytes before the element
    being scanned are dropped on every refill.
    """

    def __init__(self, fh: BinaryIO):
        self.fh = fh
        self.buf = b""
        self.base = 0
        self.eof = False

    def _fill(self, keep_from: int) -> bool:
        """Read more, dropping bytes before file offset `keep_from`; False at end of file."""
        if self.eof:
            return False
        kept = self.buf[keep_from - self.base:]
        data = self.fh.read(max(CHUNK_BYTES, len(kept)))  # at least double: a long element costs linear time
        self.base = keep_from
        self.buf = kept + data
        self.eof = not data
        return bool(data)

    def _peek(self, pos: int) -> tuple[int, bytes]:
        """(offset, byte) of the first non-whitespace byte at or after `pos`; byte is b"" at end of file."""
        while True:
            i = pos - self.base
            while i < len(self.buf) and self.buf[i] in _WHITESPACE:
                i += 1
            pos = i + self.base
            if i < len(self.buf):
                return pos, self.buf[i:i + 1]
            if not self._fill(pos):
                return pos, b""

    def elements(self) -> Iterator[RawRecord]:
        """The elements in order; raises BadRecord on a file that is not one well-formed array."""
        pos, first = self._peek(0)
        if first == b"\xef" and self.buf[pos - self.base:].startswith(_BOM):
            pos, first = self._peek(pos + len(_BOM))
        if not first:
            raise BadRecord("empty file (no JSON value)")
        if first != b"[":
            kinds = {b"{": "an object", b'"': "a string", b"t": "a boolean", b"f": "a boolean", b"n": "null"}
            raise BadRecord(f"the top-level value is {kinds.get(first, 'a number or not JSON')}; "
                            "a .json trajectory must be one JSON array of states (JSON Lines files end in .jsonl)")
        pos, byte = self._peek(pos + 1)
        if byte == b"]":
            pos += 1
        else:
            index = 0
            while True:
                if not byte:
                    raise BadRecord("truncated: the file ends where this element should start", index)
                end = self._element_end(pos, index)
                yield RawRecord(index, self.buf[pos - self.base:end - self.base])
                pos, byte = self._peek(end)
                if byte == b"]":
                    pos += 1
                    break
                if byte != b",":
                    found = repr(byte) if byte else "the end of the file"
                    raise BadRecord(f"truncated or malformed: expected ',' or ']' after this element, "
                                    f"found {found} at byte {pos}", index)
                index += 1
                pos, byte = self._peek(pos + 1)
        pos, byte = self._peek(pos)
        if byte:
            raise BadRecord(f"unexpected data after the closing ']' at byte {pos}")

    def _element_end(self, start: int, index: int) -> int:
        """File offset just past the element that begins at `start` (its first byte is not whitespace)."""
        depth = 0
        pos = start
        while True:
            pattern = _TOP if depth == 0 else _NESTED
            match = pattern.search(self.buf, pos - self.base)
            if match is None or match.group() == b'"':  # the buffer ends first, or inside a string
                pos = self.base + (match.start() if match is not None else len(self.buf))
                if pos - start > MAX_STATE_BYTES:
                    raise BadRecord(f"larger than {MAX_STATE_BYTES} bytes", index)
                if not self._fill(start):
                    raise BadRecord("truncated: the file ends inside this element", index)
                continue
            token = match.group()
            if token == b"[" or token == b"{":
                depth += 1
            elif token == b"]" or token == b"}":
                if depth == 0:  # the array's own closing bracket ends a scalar element
                    return self._trim(start, self.base + match.start())
                depth -= 1
                if depth == 0:
                    return self.base + match.end()
            elif token == b",":  # only matched at depth 0: ends a scalar element
                return self._trim(start, self.base + match.start())
            pos = self.base + match.end()

    def _trim(self, start: int, end: int) -> int:
        while end > start and self.buf[end - 1 - self.base] in _WHITESPACE:
            end -= 1
        return end
