"""How the API reads a JSON body (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``): DRF's JSON parser, refusing with
a 400 that says what is wrong, and where, what it would take silently or answer with a 500 or Python's own words."""
from __future__ import annotations

import codecs
import math
import re
import sys
from dataclasses import dataclass

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser as RestJSONParser
from rest_framework.parsers import get_encoding
from rest_framework.utils import json


def distinct_keys_object(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object's members as a dict, refusing (``ValueError``) a key given twice, of which ``json`` would keep
    the last silently."""
    data = dict(pairs)
    if len(data) < len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the key {repeated!r} is given more than once")
    return data


#: A UTF-16 surrogate code point: JSON's ``\ud800`` escape gives one alone, which is no Unicode character.
SURROGATE = re.compile("[\ud800-\udfff]")
#: What ``refusal`` says of a key or a string holding one.
LONE_SURROGATE = ("holds a lone surrogate (an escape from \\ud800 to \\udfff without its pair), which is not a Unicode "
                  "character.")


@dataclass(frozen=True)
class LongInteger:
    """A JSON integer of more ``digits`` than Python converts (``sys.get_int_max_str_digits``, 4,300), in the parsed
    body in its place (``whole_number``) until ``refusal`` names where it is."""

    digits: int


def whole_number(text: str) -> int | LongInteger:
    """A JSON integer's value (``json``'s ``parse_int``), or a ``LongInteger`` for one Python refuses to convert."""
    try:
        return int(text)
    except ValueError:
        return LongInteger(len(text.lstrip("-")))


@dataclass(frozen=True)
class HugeNumber:
    """A JSON number past the largest float (``1e400``, which Python reads as infinity), in the parsed body in its
    place (``decimal_number``) until ``refusal`` names where it is."""


def decimal_number(text: str) -> float | HugeNumber:
    """A JSON number's value (``json``'s ``parse_float``), or a ``HugeNumber`` for one no float holds."""
    value = float(text)
    return value if math.isfinite(value) else HugeNumber()


def refusal(data: object) -> str | None:
    """Why parsed JSON cannot be taken, naming where (``json_path``): a key or a string value holding a lone
    surrogate (``SURROGATE``), which UTF-8 cannot encode, so neither PostgreSQL nor the response can hold it; an
    integer too long to convert (``LongInteger``); or a number too large for a float (``HugeNumber``). None when
    there is none of these. Iterative: the parser takes JSON nested up to Python's recursion limit."""
    pending: list[tuple[object, tuple]] = [(data, ())]
    while pending:
        value, path = pending.pop()
        if isinstance(value, str) and SURROGATE.search(value):
            return f"{json_path(path)} {LONE_SURROGATE}"
        if isinstance(value, LongInteger):
            return (f"{json_path(path)} is a whole number of {value.digits:,} digits; a number may have at most "
                    f"{sys.get_int_max_str_digits():,}.")
        if isinstance(value, HugeNumber):
            return f"{json_path(path)} is a number beyond the largest one can hold (about 1.8e308)."
        if isinstance(value, list):
            pending.extend((item, (*path, index)) for index, item in enumerate(value))
        elif isinstance(value, dict):
            key = next((key for key in value if SURROGATE.search(key)), None)
            if key is not None:
                return f"a key in {json_path(path)} {LONE_SURROGATE}"
            pending.extend((item, (*path, key)) for key, item in value.items())
    return None


def json_path(path: tuple) -> str:
    """A place in parsed JSON as its keys and indexes, ``['judge']`` or ``['x'][2]``; ``the body`` for the top."""
    return "".join(f"[{step!r}]" for step in path) or "the body"


class JSONParser(RestJSONParser):
    """DRF's JSON parser (its encoding and its strict reading of NaN and Infinity), answering with its 400
    ``{"detail": "JSON parse error - ..."}`` also an object that gives a key twice (``distinct_keys_object``),
    JSON nested past Python's recursion limit (``[[[...]]]`` a few thousand deep, a few kB), which was a 500: DRF
    catches only ``ValueError``, a string with a lone surrogate, which was a 500 when the 400 that named it could
    not be encoded, and an integer of more than 4,300 digits, which was a 400 in Python's words ("Exceeds the
    limit (4300 digits) for integer string conversion ..."), and a number past the largest float (``1e400``), which
    was read as infinity; these three name where they are (``refusal``)."""

    def parse(self, stream, media_type=None, parser_context=None):
        reader = codecs.getreader(get_encoding(parser_context or {}))
        try:
            data = json.load(reader(stream), object_pairs_hook=distinct_keys_object, parse_int=whole_number,
                             parse_float=decimal_number, parse_constant=json.strict_constant if self.strict else None)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None
        refused = refusal(data)
        if refused is not None:
            raise ParseError(f"JSON parse error - {refused}")
        return data
