"""Errors a user sees as one clear line (``rabench: ...``) and exit status 2."""

from __future__ import annotations


class UserError(Exception):
    """Bad input from the user: printed as one line, exit status 2, never a traceback."""

    exit_code = 2


class ProblemsFound(UserError):
    """Several problems found at once (e.g. by ``cases validate``); one line each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) found")
