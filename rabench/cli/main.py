"""``rabench``: the command-line entry point.

Each subcommand lives in its own module under ``rabench.cli`` and exposes
``register(subparsers)``; modules whose name starts with ``cases_`` register under
``rabench cases``. Adding a command is adding a module to ``COMMANDS``.

Exit codes: 0 success; 1 the command ran but found failures (e.g. a failed gate);
2 bad input or usage (one line on stderr, never a traceback); 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from rabench import __version__
from rabench.score.output import SPEC
from rabench.cli.parser import Parser
from rabench.errors import ProblemsFound, UserError

# Order = order in --help.
COMMANDS = [
    "bench",
    "cases_validate",
    "cases_generate",
    "cases_audit",
    "cases_shift",
    "cases_import",
    "cases_derive",
    "cases_forge",
    "run",
    "load",
    "score",
    "report",
    "compare",
    "targets",
    "fake_provider",
    "engine",
    "schema",
]

GROUPS = {
    "cases": "Make, import, validate and audit case suites (cases/<suite>/manifest.jsonl + files).",
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="rabench",
        description=(
            "Runner for RA-Bench: run receipt-audit targets over a case suite, "
            "score them with intervals, report. Pipeline: cases -> prepare -> run -> score -> report."
        ),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"rabench {__version__} (the runner; implements the benchmark spec {SPEC})",
        help="the rabench version and the RA-Bench spec version it implements",
    )
    top = parser.add_subparsers(dest="command", metavar="COMMAND")
    groups: dict[str, argparse._SubParsersAction] = {}
    for name, help_text in GROUPS.items():
        gp = top.add_parser(name, help=help_text, description=help_text)
        groups[name] = gp.add_subparsers(dest="subcommand", metavar="SUBCOMMAND")
        gp.set_defaults(func=lambda args, gp=gp: (gp.print_help(), 2)[1])
    for name in COMMANDS:
        modname = f"rabench.cli.{name}"
        try:
            module = importlib.import_module(modname)
        except ModuleNotFoundError as exc:  # command not built yet
            if exc.name == modname:
                continue
            raise
        group = name.split("_", 1)[0] if name.split("_", 1)[0] in groups else None
        module.register(groups[group] if group else top)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()  # imports every command: Ctrl-C often lands here
    except KeyboardInterrupt:
        print("rabench: interrupted", file=sys.stderr)
        return 130
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = args.func(args)
    except ProblemsFound as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        print(f"rabench: {exc}", file=sys.stderr)
        return exc.exit_code
    except UserError as exc:
        print(f"rabench: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("rabench: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
