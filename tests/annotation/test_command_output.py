"""What the commands write to standard output (``--out -``) when its reader stops reading, as ``| head`` does."""
from __future__ import annotations

import os

import pytest
from django.core.management.base import BaseCommand

from annotation.management.command_helpers import STDOUT, write_chunks


def test_a_reader_that_stops_reading_ends_the_command_quietly_with_status_1():
    """``export_appraise_xml --out - | head`` ended in a BrokenPipeError traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    with os.fdopen(write_end, "w", encoding="utf-8") as stream:
        command = BaseCommand(stdout=stream)
        with pytest.raises(SystemExit) as ended:
            write_chunks(command, STDOUT, ["<ranking-item/>\n" * 10_000, "</appraise-results>\n"])
        assert ended.value.code == 1
        stream.write("what the interpreter flushes at exit")
        stream.flush()  # goes to /dev/null now: no second BrokenPipeError
