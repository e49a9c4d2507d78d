"""The one ArgumentParser every rabench command uses: a usage error is one line on stderr
(exit 2), and an unknown flag names the closest flag of that command ("did you mean
--repeat?"). Subcommand parsers inherit the class through ``add_subparsers``."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import NoReturn


def _closest(word: str, choices: list[str]) -> str | None:
    hit = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return hit[0] if hit else None


class Parser(argparse.ArgumentParser):
    def _flags(self) -> list[str]:
        return sorted(s for s in self._option_string_actions if s.startswith("--"))

    def _is_leaf(self) -> bool:
        return not any(isinstance(a, argparse._SubParsersAction) for a in self._actions)

    def _unknown_long(self, args: list[str]) -> list[str]:
        """Long flags in args that name no flag of this command (nor abbreviate one)."""
        flags = self._flags()
        out = []
        for a in args:
            if a == "--":
                break
            if not a.startswith("--"):
                continue
            name = a.split("=", 1)[0]
            if name not in flags and not any(f.startswith(name) for f in flags):
                out.append(a)
        return out

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        if self._is_leaf() and args is not None:
            # before argparse's own checks, so a typo isn't reported as a missing --out
            unknown = self._unknown_long(list(args))
            if unknown:
                self.error(self._unknown_message(unknown))
        ns, extras = super().parse_known_args(args, namespace)
        # Only the command that owns the flags can name the closest one; the top-level
        # parser would only say "unrecognized arguments".
        if self._is_leaf() and self.prog.count(" ") >= 1:
            unknown = [e for e in extras if e.startswith("-") and e != "-"]
            if unknown:
                self.error(self._unknown_message(unknown))
        return ns, extras

    def _unknown_message(self, unknown: list[str]) -> str:
        bits = []
        for flag in unknown:
            name = flag.split("=", 1)[0]
            near = _closest(name, self._flags())
            bits.append(f"{name} (did you mean {near}?)" if near else name)
        word = "argument" if len(bits) == 1 else "arguments"
        return f"unrecognized {word}: " + ", ".join(bits)

    def error(self, message: str) -> NoReturn:
        if message.startswith("argument ") and "invalid choice: " in message and "(choose from" in message:
            # a mistyped subcommand: suggest the nearest one
            word = message.split("invalid choice: ", 1)[1].split(" (choose from", 1)[0].strip("'")
            choices = [c.strip().strip("'") for c in message.split("(choose from", 1)[1].rstrip(")").split(",")]
            near = _closest(word, choices)
            message = f"unknown command '{word}'" + (f" (did you mean '{near}'?)" if near else "")
            message += "; choose from " + ", ".join(choices)
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)
