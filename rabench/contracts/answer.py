"""What a target answers for one case, whatever the suite: the ``Answer`` tagged union.

Each suite kind has one answer type (``rabench.suites``): the receipt suite's ``Verdict``,
the ``ap`` suite's ``APVerdict``. Both are tagged by ``suite`` (as ``Label`` is), so one
``Outcome.verdict`` field carries either and a reader tells them apart by the tag, never by
which field is set. A suite kind added outside rabench (a plug-in) decodes its outcomes with
its own ``Outcome`` subclass whose ``verdict`` names its answer type (``Suite.outcome_type``).
"""

from __future__ import annotations

from typing import TypeAlias

from rabench.contracts.ap_verdict import APVerdict
from rabench.contracts.verdict import Verdict

Answer: TypeAlias = Verdict | APVerdict
