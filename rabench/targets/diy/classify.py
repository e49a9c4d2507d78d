"""One HTTP reply -> one Decision (and the Verdict when it is ``ok``).

Pure: no I/O, no exceptions escape except through ``errors.raise_for``. The
order is the policy (docs/targets.md, "Error mapping"): transport statuses,
other statuses, unreadable body, different model, refusal, no text, the answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType

import msgspec

from rabench.contracts import Verdict
from rabench.contracts.ap_verdict import APVerdict
from rabench.targets.diy.answer import AnswerError, parse_answer
from rabench.targets.diy.errors import Decision, classify_status, model_matches, scrub, truncate
from rabench.targets.diy.reply import Reply, ReplyShapeError, error_message

RAW_KEEP = 2000  # characters of an unreadable body/answer kept in the outcome


class Classified(msgspec.Struct, frozen=True):
    decision: Decision
    reply: Reply | None = None
    verdict: Verdict | APVerdict | None = None  # an APVerdict when asked the AP prompt


def classify(
    status: int,
    headers: Mapping[str, str],
    raw: bytes,
    *,
    wire: ModuleType,
    pinned: str,
    check_model: bool = True,
    strip_prefix: bool = False,
    secrets: Iterable[str] = (),
    parse: Callable[[str], Verdict | APVerdict] = parse_answer,
) -> Classified:
    secrets = tuple(secrets)

    def clean(text: str) -> str:
        return truncate(scrub(text, secrets), RAW_KEEP)

    if not 200 <= status < 300:
        return Classified(classify_status(status, headers, error_message(raw), secrets))
    decode = getattr(wire, "decode", None)
    reply = decode(raw) if decode is not None else None  # the usual shape, typed, from bytes
    if reply is None:  # anything else: the lenient reader, with its error messages
        text = raw.decode("utf-8", "replace")
        try:
            payload = json.loads(text)
        except ValueError:
            return Classified(Decision("invalid_output", "malformed JSON body: " + clean(text), status))
        try:
            reply = wire.read(payload)
        except ReplyShapeError as exc:
            return Classified(Decision("invalid_output", f"{exc}: " + clean(text), status))
    if check_model and not model_matches(pinned, reply.model, strip_prefix=strip_prefix):
        return Classified(
            Decision("error", clean(f"model mismatch: pinned {pinned!r}, answered {reply.model!r}"), status),
            reply,
        )
    if reply.refusal:
        detail = reply.refusal + (f": {reply.text}" if reply.text else "")
        return Classified(Decision("refusal", clean(detail), status), reply)
    if not reply.text or not reply.text.strip():
        return Classified(
            Decision("invalid_output", f"no answer text (finish reason {reply.finish!r})", status),
            reply,
        )
    try:
        verdict = parse(reply.text)
    except AnswerError as exc:
        return Classified(
            Decision("invalid_output", clean(f"unreadable answer ({exc}): {reply.text}"), status),
            reply,
        )
    return Classified(Decision("ok", status=status), reply, verdict)
