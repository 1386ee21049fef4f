"""What the management commands share: a command on one campaign named by ``--campaign``, finding a campaign by name,
reading a whole-number option and the user map of an import, and writing a command's output (one text, or a streamed
one chunk by chunk)."""
from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Campaign
from annotation.request_numbers import plain_whole_number
from annotation.services.judged_screens import parse_user_map
from annotation.services.textfiles import NumberError, shown

#: The output path that means standard output.
STDOUT = "-"


def get_campaign(name: str) -> Campaign:
    """The campaign named ``name``, or a CommandError listing the campaigns there are."""
    try:
        return Campaign.objects.get(name=name)
    except Campaign.DoesNotExist:
        known = ", ".join(Campaign.objects.values_list("name", flat=True)) or "none"
        raise CommandError(f"no campaign named {name!r} (campaigns: {known})") from None


class CampaignCommand(BaseCommand):
    """A command on one existing campaign, named by ``--campaign NAME``: subclasses add their own arguments in
    ``add_campaign_arguments`` and do their work in ``handle_campaign(campaign, **options)`` (the options but
    ``campaign``); an unknown name is a CommandError that lists the campaigns there are (``get_campaign``)."""

    def add_arguments(self, parser) -> None:
        parser.add_argument("--campaign", required=True, metavar="NAME", help="name of the campaign")
        self.add_campaign_arguments(parser)

    def add_campaign_arguments(self, parser) -> None:
        """The command's own arguments, after ``--campaign``."""

    def handle(self, *args, **options):
        name = options.pop("campaign")
        return self.handle_campaign(get_campaign(name), **options)

    def handle_campaign(self, campaign: Campaign, **options):
        raise NotImplementedError("a CampaignCommand defines handle_campaign")


def whole_number_option(text: str, negative: bool = False) -> int:
    """argparse ``type`` of a whole-number option: ``text`` as the forms read a whole number (``plain_whole_number``,
    the spaces around it dropped; a minus when ``negative``), else argparse's usage error naming the option
    (``argument --count: '1_0' is not a whole number from 0 (ASCII digits 0-9, such as 42)``); ``int``, argparse's
    usual type, took ``1_0`` as 10 and ``٣`` as 3."""
    try:
        return plain_whole_number(text.strip(), negative)
    except NumberError as error:
        raise argparse.ArgumentTypeError(f"{shown(text.strip())} {error}") from None


def signed_whole_number_option(text: str) -> int:
    """``whole_number_option`` that also takes a negative number (``-1``)."""
    return whole_number_option(text, negative=True)


def user_map(options: dict) -> dict[str, str]:
    """The ``--map-user NAME=ACCOUNT`` options of an import as a dict, or a CommandError naming the option."""
    try:
        return parse_user_map(" ".join(options["map_user"]))
    except ValueError as exc:
        raise CommandError(f"--map-user: {exc}") from None


def check_output_path(path: str) -> None:
    """Refuse, before a command does its work, an output ``path`` it could not write at the end: a folder, or a file
    in a folder that does not exist or cannot be written (a CommandError naming it, as ``write_chunks`` would give
    after the work); ``-`` is standard output. ``analyze`` computed and recorded a whole analysis first."""
    if path == STDOUT:
        return
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        reason = "it is a folder"
    elif not folder.is_dir():
        reason = f"no folder {folder}"
    elif not os.access(target if target.exists() else folder, os.W_OK):
        reason = "permission denied"
    else:
        return
    raise CommandError(f"{path}: cannot write ({reason}); nothing was done")


def write_output(command: BaseCommand, path: str, text: str) -> bool:
    """Write ``text`` to the file ``path`` (UTF-8), or to the command's standard output for ``-`` (``write_chunks``
    of the one text)."""
    return write_chunks(command, path, [text])


def write_chunks(command: BaseCommand, path: str, chunks: Iterable[str]) -> bool:
    """Write the ``chunks`` of a text one after another as they come, so that a streamed export holds one chunk in
    memory, to the file ``path`` (UTF-8), or to the command's standard output for ``-``. Returns whether a file was
    written (the caller then says so on stderr); a file that cannot be written is a CommandError naming it. When the
    reader of standard output stops reading (``--out - | head``), the command ends there with status 1, quietly, as
    a shell tool does, where it ended in a BrokenPipeError traceback."""
    if path == STDOUT:
        try:
            for chunk in chunks:
                command.stdout.write(chunk, ending="")
            command.stdout.flush()
        except BrokenPipeError:
            # What is still buffered goes to /dev/null, so the interpreter's last flush at exit does not fail again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, command.stdout.fileno())
            os.close(devnull)
            raise SystemExit(1) from None
        return False
    try:
        with Path(path).open("w", encoding="utf-8") as out:
            for chunk in chunks:
                out.write(chunk)
    except OSError as exc:
        raise CommandError(f"{path}: cannot write ({exc.strerror})") from None
    return True
