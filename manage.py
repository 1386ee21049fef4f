#!/usr/bin/env python
"""Django's command-line utility for gecappraise."""
import gc
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gecappraise.settings")
    import django
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        django.setup()
    except ImproperlyConfigured as error:
        # The settings say what is wrong with the environment; the operator gets that line, not a traceback.
        sys.exit(f"manage.py: {error}")
    execute_from_command_line(sys.argv)
    # The command is done. The interpreter's shutdown would run the cycle collector over every object of Django and
    # the numeric stack (0.2-0.3 s of a command's time: benchmarks/analysis.py); frozen objects are left to the
    # operating system, which frees the process's memory anyway. Files and connections are closed by then.
    gc.freeze()


if __name__ == "__main__":
    main()
