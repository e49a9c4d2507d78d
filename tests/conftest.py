"""Shared test helpers live in tests/support/ (importable from every test folder)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "support"))

# A shell starts background jobs with SIGINT ignored, and an ignored signal stays ignored across
# exec: the Ctrl-C tests' rabench processes would then never see their SIGINT (8 tests failed so
# under `make test &`). A handler in this process is reset to the default in every child instead.
import signal

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
