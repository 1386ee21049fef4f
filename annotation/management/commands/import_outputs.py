"""manage.py import_outputs: create a campaign from a source file and aligned system output files."""
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from annotation.models import Campaign
from annotation.services.field_rules import SYSTEM_NAME_RULE
from annotation.services.importing import SOURCE_AS_SYSTEM_RULE, import_outputs, is_the_source
from annotation.services.screens import no_screen_reason
from annotation.services.textfiles import InputFileError, NamedFile, check_size
from gecappraise.plurals import counted


def read_named(path: str) -> NamedFile:
    """A file from disk, named by its base name; a clear CommandError when it cannot be read or is over the
    upload limit (checked before it is read)."""
    file = Path(path)
    try:
        check_size(file.name, file.stat().st_size, settings.MAX_UPLOAD_BYTES)
        return NamedFile(file.name, file.read_bytes())
    except OSError as exc:
        raise CommandError(f"{path}: cannot read ({exc.strerror})") from None
    except InputFileError as exc:
        raise CommandError(str(exc)) from None


def check_source_as_system(source_path: str, source: NamedFile, paths: list[str], systems: list[NamedFile]) -> None:
    """Refuse a system file that has the source file's name without being the source file itself (the same path
    or the same content), naming both paths (their names alone are the same)."""
    for path, file in zip(paths, systems):
        if file.name == source.name and not is_the_source(source, file):
            raise CommandError(
                f"{path}: this system file has the name of the source file {source_path} but other content; "
                f"{SOURCE_AS_SYSTEM_RULE}"
            )


class Command(BaseCommand):
    help = (
        "Create a campaign from a source file (one sentence per line) and system output files aligned with it. "
        "Each SYSTEM_FILE is a system named by its file name; the source may also be one of them (then it is "
        "judged as the system of kind 'input', as INPUT in CoNLL-14; a system file with the source's name must be "
        "the source file itself, the same content). A system name has " + SYSTEM_NAME_RULE + ". "
        "Nothing is written if any file is wrong."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="NAME", help="name of the new campaign")
        parser.add_argument("--mode", choices=Campaign.Mode.values, default=Campaign.Mode.RANKING,
                            help="how judges judge: ranking, relative ranking of up to M corrections from best to "
                                 "worst (G15; the default); prws, a 0-100 slider and a 'meaning changed' box per "
                                 "correction (N19)")
        parser.add_argument("--source", required=True, metavar="SOURCE_FILE", help="the source sentences")
        parser.add_argument(
            "--documents", metavar="DOC_ID_FILE", help="document id of each source line (default: one document)"
        )
        parser.add_argument("system_files", nargs="+", metavar="SYSTEM_FILE", help="system outputs, one per file")

    def handle(self, *args, **options):
        source = read_named(options["source"])
        systems = [read_named(path) for path in options["system_files"]]
        check_source_as_system(options["source"], source, options["system_files"], systems)
        documents = read_named(options["documents"]) if options["documents"] else None
        try:
            campaign = import_outputs(options["campaign"], source, systems, documents, mode=options["mode"])
        except (InputFileError, ValidationError) as exc:
            raise CommandError(str(exc.messages[0] if isinstance(exc, ValidationError) else exc)) from None
        counts = campaign.distinct_histogram
        mean = sum(int(k) * v for k, v in counts.items()) / max(sum(counts.values()), 1)
        self.stdout.write(
            f"Created campaign {campaign.name!r}: {counted(campaign.systems.count(), 'system')}, "
            f"{counted(campaign.segments.count(), 'sentence')} in {counted(campaign.documents.count(), 'document')}, "
            f"{mean:.2f} distinct outputs per sentence on average."
        )
        if (reason := no_screen_reason(campaign)) is not None:
            self.stderr.write(f"No screen can be made of it for judges: {reason}. Its outputs can still be scored "
                              "against references (import_references, score_metrics).")
