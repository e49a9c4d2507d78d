"""``rabench run --batch``: DIY targets asked through their provider's asynchronous batch API.

Why: OpenAI Batch, Anthropic Message Batches and Gemini batch mode answer within hours
at half the list price; for a study of tens of thousands of receipts that is the
cheaper way, and latency is not what such a run measures.

Per target: the units still to run are prepared, built into the same request bodies
the synchronous path sends, and submitted in chunks (at most ``MAX_REQUESTS`` and
``MAX_BYTES`` per batch for the provider); each accepted batch is recorded in
``runs/ID/batches.jsonl`` (its id and the units it carries) the moment the provider
returns its id. Batches are polled with a growing interval; as each one ends its
results are classified exactly like synchronous replies (``diy.classify``) and
written to ``outcomes.jsonl``: ``attempts`` 1, no ``latency_s`` (a batch has no
per-call latency: the scorer shows latency as not measured), cost at the list price
x ``BATCH_DISCOUNT``. A request the provider failed (429/5xx inside the batch) is an
``error`` outcome; one it did not get to before the batch expired gets no outcome.

Resume (``--resume --batch`` after a crash or ``kill -9``): recorded batches that
have not ended are polled, never submitted again; units of ended batches that have no
outcome (expired) and units in no batch are submitted anew.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import msgspec

from rabench.contracts import Outcome
from rabench.errors import UserError
from rabench.prepare.image import PreparationError
from rabench.run.progress import TargetCounters
from rabench.run.runner import RunContext
from rabench.targets.diy.classify import classify
from rabench.targets.diy.prices import cost_usd
from rabench.targets.diy.target import _B64_CACHE, DiyTarget, _without_key

BATCHES = "batches.jsonl"
BATCH_DISCOUNT = 0.5  # OpenAI, Anthropic and Gemini list batch requests at 50% of the synchronous price
# Per provider: (requests, bytes of request data) per batch, a little under the documented limits
# (OpenAI: 50,000 requests / 200 MB file; Anthropic: 100,000 / 256 MB; Gemini inline: 20 MB).
MAX_REQUESTS = {"openai": 50_000, "anthropic": 100_000, "gemini": 10_000}
MAX_BYTES = {"openai": 190_000_000, "anthropic": 240_000_000, "gemini": 19_000_000}
BATCH_WIRES = frozenset(MAX_REQUESTS)


class BatchRecord(msgspec.Struct, omit_defaults=True):
    """One line of batches.jsonl: a submitted batch (``units``) or the note that it ended."""

    target: str
    batch_id: str
    units: list[tuple[str, int]] = []  # (case_id, repetition); custom_id of unit i is "u<i>"
    ended: bool = False
    at: float = 0.0


@dataclass
class Result:
    index: int  # the unit's position in its batch
    status: int | None  # HTTP status of the request inside the batch; None: not answered (expired)
    body: bytes = b""


def read_records(path: Path) -> list[BatchRecord]:
    if not path.exists():
        return []
    dec = msgspec.json.Decoder(BatchRecord)
    out = []
    for n, line in enumerate(path.read_bytes().splitlines(), 1):
        if line.strip():
            try:
                out.append(dec.decode(line))
            except (msgspec.DecodeError, msgspec.ValidationError):
                if n == len(path.read_bytes().splitlines()):
                    break  # a line torn by a crash: the batch will be found missing and resubmitted
                raise UserError(f"{path}:{n}: not a batch record") from None
    return out


def append_record(path: Path, record: BatchRecord) -> None:
    with open(path, "ab") as fh:
        fh.write(msgspec.json.encode(record) + b"\n")
        fh.flush()
        os.fsync(fh.fileno())


def check_batch_targets(targets: list[Any]) -> None:
    for t in targets:
        if not isinstance(t, DiyTarget) or t.settings.wire not in BATCH_WIRES:
            raise UserError(
                f"--batch: {t.info.id} has no batch API (only diy:openai:*, diy:anthropic:* and "
                "diy:gemini:* targets, or providers with one of those wires)"
            )


# ---------------------------------------------------------------- the three wire protocols


class _Wire:
    def __init__(self, target: DiyTarget, session: aiohttp.ClientSession):
        self.t = target
        self.s = session
        self.base = target.settings.base_url

    async def submit(self, bodies: list[dict[str, Any]]) -> str:
        raise NotImplementedError

    async def poll(self, batch_id: str) -> list[Result] | None:
        """None while the batch runs; its results once it ended."""
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        req = self.t._wire.build(self.t.settings, self.t._key, self.t.model, "", "", "image/png")
        return dict(req.headers)

    async def _json(self, method: str, url: str, **kw: Any) -> Any:
        async with self.s.request(method, url, **kw) as resp:
            raw = await resp.read()
            if resp.status >= 300:
                text = raw.decode("utf-8", "replace")[:300]
                raise UserError(f"{self.t.info.id}: batch API {method} {url} -> HTTP {resp.status}: {text}")
            return json.loads(raw) if raw else None

    async def _bytes(self, url: str) -> bytes:
        async with self.s.get(url, headers=self.headers()) as resp:
            raw = await resp.read()
            if resp.status >= 300:
                raise UserError(f"{self.t.info.id}: batch API GET {url} -> HTTP {resp.status}")
            return raw


class _OpenAI(_Wire):
    async def submit(self, bodies: list[dict[str, Any]]) -> str:
        lines = b"".join(
            msgspec.json.encode({"custom_id": f"u{i}", "method": "POST", "url": "/v1/chat/completions", "body": b})
            + b"\n"
            for i, b in enumerate(bodies)
        )
        form = aiohttp.FormData()
        form.add_field("purpose", "batch")
        form.add_field("file", lines, filename="rabench-batch.jsonl", content_type="application/jsonl")
        headers = {k: v for k, v in self.headers().items() if k.lower() != "content-type"}
        up = await self._json("POST", f"{self.base}/files", data=form, headers=headers)
        made = await self._json(
            "POST",
            f"{self.base}/batches",
            headers=self.headers(),
            json={"input_file_id": up["id"], "endpoint": "/v1/chat/completions", "completion_window": "24h"},
        )
        return str(made["id"])

    async def poll(self, batch_id: str) -> list[Result] | None:
        b = await self._json("GET", f"{self.base}/batches/{batch_id}", headers=self.headers())
        if b.get("status") not in ("completed", "expired", "failed", "cancelled"):
            return None
        out: list[Result] = []
        for key in ("output_file_id", "error_file_id"):
            if b.get(key):
                for line in (await self._bytes(f"{self.base}/files/{b[key]}/content")).splitlines():
                    if not line.strip():
                        continue
                    item = json.loads(line)
                    idx = int(str(item["custom_id"])[1:])
                    resp = item.get("response")
                    if resp:
                        out.append(Result(idx, int(resp["status_code"]), msgspec.json.encode(resp.get("body"))))
                    else:
                        out.append(Result(idx, None))
        return out


class _Anthropic(_Wire):
    async def submit(self, bodies: list[dict[str, Any]]) -> str:
        made = await self._json(
            "POST",
            f"{self.base}/v1/messages/batches",
            headers=self.headers(),
            data=msgspec.json.encode({"requests": [{"custom_id": f"u{i}", "params": b} for i, b in enumerate(bodies)]}),
        )
        return str(made["id"])

    async def poll(self, batch_id: str) -> list[Result] | None:
        b = await self._json("GET", f"{self.base}/v1/messages/batches/{batch_id}", headers=self.headers())
        if b.get("processing_status") != "ended":
            return None
        out: list[Result] = []
        for line in (await self._bytes(str(b["results_url"]))).splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            idx = int(str(item["custom_id"])[1:])
            result = item.get("result") or {}
            if result.get("type") == "succeeded":
                out.append(Result(idx, 200, msgspec.json.encode(result.get("message"))))
            elif result.get("type") == "errored":
                out.append(Result(idx, 500, msgspec.json.encode(result.get("error"))))
            else:  # expired, canceled
                out.append(Result(idx, None))
        return out


class _Gemini(_Wire):
    async def submit(self, bodies: list[dict[str, Any]]) -> str:
        from urllib.parse import quote

        payload = {
            "batch": {
                "display_name": f"rabench-{self.t.info.id}",
                "input_config": {
                    "requests": {
                        "requests": [{"request": b, "metadata": {"key": f"u{i}"}} for i, b in enumerate(bodies)]
                    }
                },
            }
        }
        url = f"{self.base}/v1beta/models/{quote(self.t.model, safe='.-_')}:batchGenerateContent"
        made = await self._json("POST", url, headers=self.headers(), data=msgspec.json.encode(payload))
        return str(made["name"]).removeprefix("batches/")

    async def poll(self, batch_id: str) -> list[Result] | None:
        op = await self._json("GET", f"{self.base}/v1beta/batches/{batch_id}", headers=self.headers())
        if not op.get("done"):
            return None
        output = op.get("response") or (op.get("metadata") or {}).get("output") or {}
        inlined = (output.get("inlinedResponses") or {}).get("inlinedResponses") or []
        out: list[Result] = []
        for item in inlined:
            idx = int(str((item.get("metadata") or {}).get("key", "u-1"))[1:])
            if "response" in item:
                out.append(Result(idx, 200, msgspec.json.encode(item["response"])))
            else:
                err = item.get("error") or {}
                out.append(Result(idx, int(err.get("code") or 500), msgspec.json.encode({"error": err})))
        return out  # requests without an entry were not answered (expired)


WIRES: dict[str, type[_Wire]] = {"openai": _OpenAI, "anthropic": _Anthropic, "gemini": _Gemini}


# ---------------------------------------------------------------- the run


@dataclass
class BatchRun:
    ctx: RunContext
    target: DiyTarget
    counters: TargetCounters
    path: Path  # batches.jsonl
    poll_s: float = 5.0
    poll_max_s: float = 60.0
    expired: int = 0

    async def run(self) -> None:
        tid = self.target.info.id
        records = [r for r in read_records(self.path) if r.target == tid]
        ended = {r.batch_id for r in records if r.ended}
        open_batches = {r.batch_id: r.units for r in records if not r.ended and r.units and r.batch_id not in ended}
        waiting = {tuple(u) for units in open_batches.values() for u in units}
        assert self.target._session is not None
        wire = WIRES[self.target.settings.wire](self.target, self.target._session)
        wire_name = self.target.settings.wire
        chunk: list[tuple[str, int]] = []
        bodies: list[dict[str, Any]] = []
        size = 0
        for lc in self.ctx.plan.cases():
            for rep in range(self.ctx.repetitions):
                unit = (lc.case.id, rep)
                if (lc.case.id, tid, rep) in self.ctx.done or unit in waiting:
                    continue
                try:
                    prepared = await self.ctx.cache.get(lc.path, lc.case.sha256, lc.case.media_type)
                except PreparationError as exc:
                    self._write(unit, "error", error=f"cannot prepare {lc.case.file}: {exc}", attempts=0)
                    continue
                b64 = _B64_CACHE.get(prepared.path) or await _B64_CACHE.load(prepared.path)
                req = self.target._wire.build(
                    self.target.settings,
                    self.target._key,
                    self.target.model,
                    self.target._prompt,
                    b64,
                    prepared.media_type,
                )
                n = len(b64) + 2000
                if chunk and (len(chunk) >= MAX_REQUESTS[wire_name] or size + n > MAX_BYTES[wire_name]):
                    open_batches[await self._submit(wire, chunk, bodies)] = list(chunk)
                    chunk, bodies, size = [], [], 0
                chunk.append(unit)
                bodies.append(req.body)
                size += n
        if chunk:
            open_batches[await self._submit(wire, chunk, bodies)] = list(chunk)
        delay = self.poll_s
        while open_batches:
            for batch_id in list(open_batches):
                results = await wire.poll(batch_id)
                if results is None:
                    continue
                self._results(open_batches.pop(batch_id), results)
                self.ctx.writer.flush()  # its outcomes in the file before the record that it ended
                append_record(self.path, BatchRecord(tid, batch_id, ended=True, at=time.time()))
            if open_batches:
                await anyio.sleep(delay)
                delay = min(self.poll_max_s, delay * 1.5)

    async def _submit(self, wire: _Wire, units: list[tuple[str, int]], bodies: list[dict[str, Any]]) -> str:
        batch_id = await wire.submit(bodies)
        append_record(self.path, BatchRecord(self.target.info.id, batch_id, units=list(units), at=time.time()))
        return batch_id

    def _results(self, units: list[tuple[str, int]], results: list[Result]) -> None:
        t = self.target
        answered: set[int] = set()
        secrets = (t._key,) if t._key else ()
        for r in results:
            if r.status is None or not 0 <= r.index < len(units) or r.index in answered:
                continue  # not answered (expired), or not one of ours
            answered.add(r.index)
            unit = units[r.index]
            if (unit[0], t.info.id, unit[1]) in self.ctx.done:
                continue
            got = classify(
                r.status,
                {},
                r.body,
                wire=t._wire,
                pinned=t.model,
                check_model=t.settings.check_model,
                strip_prefix=t.settings.strip_prefix,
                secrets=secrets,
            )
            usage = None
            if got.reply is not None:
                cost = cost_usd(t._price, got.reply.input_tokens, got.reply.output_tokens)
                cost = cost * BATCH_DISCOUNT if cost is not None else None
                usage = _without_key(
                    msgspec.structs.replace(
                        t.usage(got.reply.input_tokens, got.reply.output_tokens, got.reply.model),
                        cost_usd=cost,
                        model_cost_usd=cost,
                    ),
                    t._key,
                )
            d = got.decision
            if d.action == "ok" and got.verdict is not None:
                verdict = _without_key(msgspec.structs.replace(got.verdict, usage=usage), t._key)
                self._write(unit, "ok", verdict=verdict, usage=usage)
            else:  # a 429/5xx inside a batch is not retried there: an error outcome
                self._write(
                    unit, "error" if d.action == "retry" else d.action, error=d.message or d.action, usage=usage
                )
        self.expired += sum(
            1 for i, u in enumerate(units) if i not in answered and (u[0], t.info.id, u[1]) not in self.ctx.done
        )

    def _write(self, unit: tuple[str, int], status: str, *, attempts: int = 1, **kw: Any) -> None:
        self.ctx.writer.write(
            Outcome(
                run_id=self.ctx.run_id,
                case_id=unit[0],
                target=self.target.info.id,
                repetition=unit[1],
                status=status,  # type: ignore[arg-type]
                attempts=attempts,
                finished_at=time.time(),
                **kw,
            )
        )
        self.ctx.done.add((unit[0], self.target.info.id, unit[1]))
        self.counters.finish(status)
