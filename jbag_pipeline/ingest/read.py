"""Streaming readers for outside trajectory files (one JSON array of states, or JSON Lines) and strict parsing.

Memory stays bounded by the largest single state, never the whole file: a JSON array is read a chunk at a
time and parsed element by element with the standard library's incremental decoder; JSON Lines are read
line by line and each line is parsed by orjson. A state over MAX_STATE_BYTES is refused, and so is a value
that the lake cannot hold as it was written: an integer beyond 64 bits, a number beyond the float range, or a
non-zero number so small that it would be stored as 0.0 (1e-400).
"""

from __future__ import annotations

import codecs
import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import BinaryIO, Iterator

import orjson

MAX_STATE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 500  # the tokenizer recurses once per nesting level; Python's default limit is 1000 frames
MAX_LIST_DEPTH_BOTH = 10  # mode both walks a value under 2^k paths when it sits in k nested lists
CHUNK_BYTES = 1024 * 1024

_WHITESPACE = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"
_NON_SPACE = re.compile(r"[^ \t\r\n]")
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")  # how surrogateescape decoding marks a byte that is not UTF-8
# orjson turns integers beyond 64 bits into floats and reads 1e-400 as 0.0: such records take the json path
_LONG_DIGIT_RUN = re.compile(rb"\d{19,}|[eE]-\d{3,}")
_NONZERO_MANTISSA = re.compile(r"[1-9]")
_WALKED = frozenset({dict, list})
INT64_RANGE = (-(1 << 63), (1 << 63) - 1)  # what the lake's integer columns and token counts hold
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
    """Strict JSON (no NaN/Infinity, valid UTF-8) with integers beyond 64 bits exact; BadRecord otherwise."""
    if _LONG_DIGIT_RUN.search(data):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadRecord(f"not valid UTF-8 (byte {exc.start} of the record)") from None
        try:
            value = json.loads(text, parse_constant=_refuse_constant, parse_float=checked_float)
        except RecursionError:
            raise BadRecord(f"nested deeper than {MAX_DEPTH} levels") from None
        except (json.JSONDecodeError, _NotJson) as exc:
            raise BadRecord(f"invalid JSON: {exc}") from None
        except BadRecord:
            raise
        except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
            raise BadRecord(TOO_MANY_DIGITS) from None
    else:
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            message = str(exc)
            if "depth limit" in message:
                raise BadRecord(f"nested deeper than {MAX_DEPTH} levels") from None
            if "UTF-8" in message:
                raise BadRecord(f"not valid UTF-8 ({message})") from None
            if "infinity" in message:
                raise BadRecord(OUT_OF_FLOAT_RANGE) from None
            raise BadRecord(f"invalid JSON: {message}") from None
    return value


TOO_MANY_DIGITS = "an integer of thousands of digits does not fit in 64 bits"
OUT_OF_FLOAT_RANGE = "a number beyond the float range (about 1.8e308): it cannot be stored as written"
BELOW_FLOAT_RANGE = "a non-zero number below the float range (about 5e-324): it would be stored as 0.0"


def checked_float(text: str) -> float:
    """json's parse_float: the float of `text`, BadRecord when a non-zero number underflows to 0.0."""
    value = float(text)
    if value == 0.0 and _NONZERO_MANTISSA.search(text.partition("e")[0].partition("E")[0]):
        raise BadRecord(f"{BELOW_FLOAT_RANGE} ({clip_digits(text)})")
    return value


class _NotJson(ValueError):
    """NaN or Infinity, which Python's json accepts and JSON does not."""


def _refuse_constant(name: str):
    raise _NotJson(f"{name} is not a JSON number")


def check_shape(value: object, mode: str) -> None:
    """BadRecord if `value` cannot be stored and tokenized as written: a number that does not fit (see `shape`),
    nested over MAX_DEPTH, or (mode both) lists nested too deep."""
    depth, list_depth = shape(value)
    if depth > MAX_DEPTH:
        raise BadRecord(f"nested deeper than {MAX_DEPTH} levels")
    if mode == "both" and list_depth > MAX_LIST_DEPTH_BOTH:
        raise BadRecord(f"lists nested {list_depth} deep: mode both would walk each value under 2^{list_depth} "
                        f"paths (at most {MAX_LIST_DEPTH_BOTH}); ingest with mode ordered or unordered")


def shape(value: object) -> tuple[int, int]:
    """(container depth, list depth) of a parsed value, found iteratively; BadRecord on a number that does not fit.

    A string that may hold JSON (the tokenizer parses those) counts its brackets as depth: an upper bound.
    Integers must fit in 64 bits (the lake's integer columns and token counts) and floats must be finite
    (json reads 1e400 as infinity, which JSON text can only write as null).
    """
    deepest = lists = 0
    stack = [(value, 1, 0)]
    while stack:
        node, depth, list_depth = stack.pop()
        kind = type(node)
        if kind is str:
            deepest = max(deepest, depth - 1 + node.count("[") + node.count("{"))
            lists = max(lists, list_depth + node.count("["))
            continue
        if kind is list:
            list_depth += 1
            lists = max(lists, list_depth)
        deepest = max(deepest, depth)
        for child in (node.values() if kind is dict else node):
            child_kind = type(child)
            if child_kind in _WALKED or child_kind is str and child[:1] in ("[", "{"):
                stack.append((child, depth + 1, list_depth))
            elif child_kind is int:
                if not INT64_RANGE[0] <= child <= INT64_RANGE[1]:
                    raise BadRecord(f"the integer {clip_digits(str(child))} does not fit in 64 bits")
            elif child_kind is float and not math.isfinite(child):
                raise BadRecord(OUT_OF_FLOAT_RANGE)
    return deepest, lists


def clip_digits(text: str, keep: int = 40) -> str:
    """A long number's text cut to `keep` characters, with its digit count."""
    return text if len(text) <= keep else f"{text[:keep]}... ({len(text.lstrip('-'))} digits)"


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


class HashingReader:
    """A binary file read through `read` / `readline` while a SHA-256 of every byte handed out is kept."""

    def __init__(self, fh: BinaryIO):
        self.fh = fh
        self.hash = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self.fh.read(size)
        self.hash.update(data)
        return data

    def readline(self, size: int = -1) -> bytes:
        data = self.fh.readline(size)
        self.hash.update(data)
        return data

    def digest(self) -> str:
        """The hash of the whole file as read: what the parser did not consume is read (and hashed) first."""
        while self.read(CHUNK_BYTES):
            pass
        return self.hash.hexdigest()


def file_digest(path) -> str:
    """SHA-256 of a file's bytes as they are now."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


class ArrayReader:
    """Reads a file holding one JSON array of states element by element, CHUNK_BYTES at a time.

    Each element is parsed by the standard library's incremental decoder (JSONDecoder.raw_decode), so only
    the element being parsed and one chunk are in memory; integers beyond 64 bits stay exact. Offsets are
    into `text`, which holds the decoded file from some point on; `_fill` drops what lies before an offset.
    """

    def __init__(self, fh: BinaryIO):
        self.fh = fh
        self.utf8 = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")  # bad bytes -> U+DC80..DCFF
        self.decoder = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=checked_float)
        self.text = ""
        self.eof = False

    def _fill(self, keep_from: int) -> bool:
        """Drop text[:keep_from] and read more (at least as much as is kept); False at end of file."""
        self.text = self.text[keep_from:]
        if self.eof:
            return False
        data = self.fh.read(max(CHUNK_BYTES, len(self.text)))
        self.eof = not data
        self.text += self.utf8.decode(data, final=self.eof)
        return not self.eof

    def _peek(self, pos: int) -> tuple[int, str]:
        """(offset, character) of the first non-whitespace character at or after `pos`; "" at end of file."""
        while True:
            match = _NON_SPACE.search(self.text, pos)
            if match is not None:
                return match.start(), match.group()
            self._fill(pos)
            pos = 0
            if self.eof and not _NON_SPACE.search(self.text):
                return len(self.text), ""

    def elements(self) -> Iterator[tuple[int, object]]:
        """(index, parsed element) in order; raises BadRecord on the first problem (the rest is unreadable)."""
        pos, first = self._peek(0)
        if first == "\ufeff":
            pos, first = self._peek(pos + 1)
        if not first:
            raise BadRecord("empty file (no JSON value)")
        if first != "[":
            kinds = {"{": "an object", '"': "a string", "t": "a boolean", "f": "a boolean", "n": "null"}
            raise BadRecord(f"the top-level value is {kinds.get(first, 'a number or not JSON')}; "
                            "a .json trajectory must be one JSON array of states (JSON Lines files end in .jsonl)")
        pos, char = self._peek(pos + 1)
        index = 0
        if char == "]":
            pos += 1
        while char != "]":
            if not char:
                raise BadRecord("truncated: the file ends where this element should start", index)
            value, pos = self._element(pos, index)
            yield index, value
            pos, char = self._peek(pos)
            if char == ",":
                index += 1
                pos, char = self._peek(pos + 1)
                if char == "]":
                    raise BadRecord("invalid JSON: a trailing comma before ']'", index)
            elif char == "]":
                pos += 1
            elif not char:
                raise BadRecord("truncated: the file ends after this element, before the array is closed", index)
            else:
                raise BadRecord(f"invalid JSON: expected ',' or ']' after this element, found {char!r}", index)
        pos, char = self._peek(pos)
        if char:
            raise BadRecord(f"unexpected data after the array's closing ']': {char!r}")

    def _element(self, start: int, index: int) -> tuple[object, int]:
        """The element starting at text[start] and the offset just past it; reads more until it is whole."""
        while True:
            try:
                value, end = self.decoder.raw_decode(self.text, start)
                if end < len(self.text) or self.eof:  # a number at the very end may continue in the next chunk
                    bad = _ESCAPED_BYTE.search(self.text, start, end)
                    if bad is not None:
                        raise BadRecord(f"not valid UTF-8: byte 0x{ord(bad.group()) - 0xDC00:02x} at character "
                                        f"{bad.start() - start} of the element", index)
                    return value, end
            except json.JSONDecodeError as err:
                open_string = err.msg.startswith("Unterminated string")
                if self.eof and (open_string or err.pos >= len(self.text.rstrip())):
                    raise BadRecord("truncated: the file ends inside this element", index) from None
                # before the end of the file, an error near the end of the text may only mean the chunk cut it
                if self.eof or not (open_string or err.pos >= len(self.text) - 16):
                    raise BadRecord(f"invalid JSON: {err.msg} at character {err.pos - start} of the element",
                                    index) from None
            except RecursionError:
                raise BadRecord(f"nested deeper than {MAX_DEPTH} levels", index) from None
            except _NotJson as exc:
                raise BadRecord(f"invalid JSON: {exc}", index) from None
            except BadRecord as exc:
                raise BadRecord(exc.reason, index if exc.position is None else exc.position) from None
            except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
                raise BadRecord(TOO_MANY_DIGITS, index) from None
            if len(self.text) - start > MAX_STATE_BYTES:
                raise BadRecord(f"larger than {MAX_STATE_BYTES} bytes", index)
            self._fill(start)
            start = 0
