"""Reading the items of one array in a large JSON object as the answer streams in.

The workflow dashboard's status lists are `{"objects": [unit, ...], "mcp": true}`, up
to a hundred megabytes. Each unit is decoded by the standard library's C decoder
(`json.JSONDecoder.raw_decode`) as soon as its last byte has arrived; only the structure
around the units (`{`, keys, `[`, commas) is walked here. That is one C pass over the
answer where an event parser costs about three times the CPU, and the memory held is a
unit and a chunk.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Iterator
from typing import Any

_WHITESPACE = " \t\n\r"
# An error this close to the end of what has arrived may only mean the rest has not:
# `fals`, `1e`, `"\u00` are cut tokens, not mistakes.
_CUT_TOKEN_CHARS = 16


class MalformedJSON(ValueError):
    """The answer is not the JSON object expected, or an item is larger than allowed."""


class _Reader:
    def __init__(self, chunks: Iterable[bytes], max_item_chars: int) -> None:
        self._chunks = iter(chunks)
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._decoder = json.JSONDecoder()
        self.max_item_chars = max_item_chars
        self.buffer = ""
        self.pos = 0
        self.ended = False

    def more(self) -> bool:
        """Append the next chunk (dropping what was read); False at the end."""
        if self.ended:
            return False
        for chunk in self._chunks:
            text = self._text.decode(chunk)
            if text:
                self.buffer = self.buffer[self.pos :] + text
                self.pos = 0
                return True
        self.ended = True
        tail = self._text.decode(b"", final=True)
        self.buffer = self.buffer[self.pos :] + tail
        self.pos = 0
        return False

    def peek(self) -> str:
        """The next character that is not white space ("" at the end)."""
        while True:
            buffer, pos = self.buffer, self.pos
            while pos < len(buffer) and buffer[pos] in _WHITESPACE:
                pos += 1
            self.pos = pos
            if pos < len(buffer):
                return buffer[pos]
            if not self.more():
                return ""

    def expect(self, *allowed: str) -> str:
        char = self.peek()
        if char not in allowed:
            found = repr(char) if char else "the end"
            raise MalformedJSON(f"expected one of {' '.join(allowed)}, found {found}")
        self.pos += 1
        return char

    def value(self) -> Any:
        """Decode the JSON value that starts here, reading on until it is whole."""
        self.peek()
        while True:
            try:
                value, end = self._decoder.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError as exc:
                cut = exc.pos >= len(self.buffer) - _CUT_TOKEN_CHARS or exc.msg.startswith(
                    "Unterminated string"
                )
                if not cut or self.ended:
                    raise MalformedJSON(str(exc)) from None
            else:
                # A number may go on in the next chunk (`1` then `.5e3`); the rest end
                # with a closing character.
                whole = not isinstance(value, int | float) or (
                    end + _CUT_TOKEN_CHARS < len(self.buffer)
                )
                if whole or self.ended:
                    self.pos = end
                    return value
            if len(self.buffer) - self.pos > self.max_item_chars:
                raise MalformedJSON(f"a value longer than {self.max_item_chars} characters")
            self.more()


def iter_array_items(
    chunks: Iterable[bytes],
    key: str,
    *,
    others: dict[str, Any],
    max_item_chars: int = 64 * 2**20,
) -> Iterator[Any]:
    """Each item of the array at `key` of the top-level object, in order, as it arrives.

    The object's other members are put in `others` as they are met (so after the last
    item, those that come after the array). A `key` whose value is not an array goes to
    `others` too, and yields nothing. Raises `MalformedJSON` for anything else.
    """
    reader = _Reader(chunks, max_item_chars)
    reader.expect("{")
    if reader.peek() == "}":
        reader.pos += 1
        return
    while True:
        name = reader.value()
        if not isinstance(name, str):
            raise MalformedJSON("a member name that is not a string")
        reader.expect(":")
        if name == key and reader.peek() == "[":
            reader.pos += 1
            if reader.peek() == "]":
                reader.pos += 1
            else:
                while True:
                    yield reader.value()
                    if reader.expect(",", "]") == "]":
                        break
        else:
            others[name] = reader.value()
        if reader.expect(",", "}") == "}":
            break
    if reader.peek():
        raise MalformedJSON("more after the end of the object")
