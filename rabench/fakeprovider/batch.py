"""The three providers' asynchronous batch APIs, as the fake provider speaks them.

* OpenAI Batch: ``POST /v1/files`` (multipart, ``purpose=batch``, a JSONL of
  ``{custom_id, method, url, body}``), ``POST /v1/batches`` (``input_file_id``,
  ``endpoint``, ``completion_window``), ``GET /v1/batches/{id}`` (``status``:
  validating, in_progress, completed, expired; ``output_file_id``, ``error_file_id``),
  ``GET /v1/files/{id}/content`` (JSONL of ``{custom_id, response: {status_code,
  body}, error}``).
* Anthropic Message Batches: ``POST /v1/messages/batches`` (``requests: [{custom_id,
  params}]``), ``GET /v1/messages/batches/{id}`` (``processing_status`` in_progress,
  ended; ``results_url``), ``GET /v1/messages/batches/{id}/results`` (JSONL of
  ``{custom_id, result: {type: succeeded|errored|expired, message|error}}``).
* Gemini batch: ``POST /v1beta/models/{model}:batchGenerateContent`` (inline
  ``batch.input_config.requests.requests[{request, metadata: {key}}]``), ``GET
  /v1beta/batches/{id}`` (an operation: ``metadata.state`` BATCH_STATE_PENDING,
  RUNNING, SUCCEEDED, EXPIRED; ``done``; inline responses under ``response``).

Each request in a batch is answered as the synchronous route would answer it (the
profile's behaviour for its model and image), except that nothing sleeps, a
``reset``/``hang``/``malformed`` becomes a 500. A batch is finished after the
profile's ``batch_polls`` polls; with ``batch_expire`` it expires instead, with only
every other request answered (the rest are the provider's "expired" entries).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import web

from rabench.fakeprovider.answers import answer_text
from rabench.fakeprovider.formats import AnthropicFormat, GeminiFormat, OpenAIFormat, image_sha256
from rabench.fakeprovider.profile import HTTP_BEHAVIOURS

if TYPE_CHECKING:
    from rabench.fakeprovider.app import FakeApp

_ids = itertools.count(1)


@dataclass
class FakeBatch:
    wire: str
    id: str
    items: list[tuple[str, str, dict[str, Any]]]  # (custom_id, model, request body)
    polls: int = 0
    results: list[tuple[str, int | None, dict[str, Any] | None]] | None = None  # None status: expired
    expired: bool = False


def answer_sync(app: FakeApp, wire: str, model: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """What the synchronous route would answer for ``body`` (status, JSON payload)."""
    fmt = {"openai": OpenAIFormat, "anthropic": AnthropicFormat, "gemini": GeminiFormat}[wire]
    image_sha = image_sha256(fmt.image_b64(body))
    if not model or image_sha is None:
        return 400, fmt.error(400, "request has no model or no base64 image")
    key = (model, image_sha)
    n = app._seen.get(key, 0)
    app._seen[key] = n + 1
    behaviour, _, rng = app.profile.choose(model, image_sha, n)
    mp = app.profile.for_model(model)
    if behaviour in HTTP_BEHAVIOURS:
        return int(behaviour), fmt.error(int(behaviour), f"scripted {behaviour} from the fake provider")
    if behaviour in ("reset", "malformed"):
        return 500, fmt.error(500, f"scripted {behaviour} (as a 500 in a batch)")
    answered = mp.answer_model.replace("{model}", model) if mp.answer_model else model
    if behaviour == "other_model":
        answered, behaviour = mp.other_model, "right"
    if behaviour == "hang":
        behaviour = "right"
    tin, tout = mp.input_tokens, mp.output_tokens
    if behaviour in ("refusal", "content_filter"):
        return 200, fmt.refusal(answered, tin, tout, behaviour == "content_filter")
    if behaviour == "empty":
        return 200, fmt.answer(answered, None, tin, 0)
    return 200, fmt.answer(answered, answer_text(behaviour, app.labels.get(image_sha), rng), tin, tout)


class BatchRoutes:
    """The batch endpoints of one FakeApp (``app.batches`` holds every batch by id)."""

    def __init__(self, app: FakeApp):
        self.app = app
        self.batches: dict[str, FakeBatch] = {}
        self.files: dict[str, bytes] = {}

    def add_to(self, router: web.UrlDispatcher) -> None:
        router.add_post("/v1/files", self.openai_upload)
        router.add_post("/v1/batches", self.openai_create)
        router.add_get("/v1/batches/{id}", self.openai_get)
        router.add_get("/v1/files/{id}/content", self.openai_file)
        router.add_post("/v1/messages/batches", self.anthropic_create)
        router.add_get("/v1/messages/batches/{id}", self.anthropic_get)
        router.add_get("/v1/messages/batches/{id}/results", self.anthropic_results)
        router.add_post("/v1beta/models/{model}:batchGenerateContent", self.gemini_create)
        router.add_get("/v1beta/batches/{id}", self.gemini_get)

    # ------------------------------------------------------------ shared

    def _advance(self, batch: FakeBatch) -> bool:
        """One poll; True once the batch has ended (answered or expired)."""
        batch.polls += 1
        if batch.results is not None:
            return True
        mp = self.app.profile.default
        if batch.polls <= mp.batch_polls:
            return False
        batch.expired = mp.batch_expire
        batch.results = []
        for i, (cid, model, body) in enumerate(batch.items):
            if batch.expired and i % 2 == 1:
                batch.results.append((cid, None, None))
            else:
                status, payload = answer_sync(self.app, batch.wire, model, body)
                batch.results.append((cid, status, payload))
        return True

    def _new(self, wire: str, items: list[tuple[str, str, dict[str, Any]]], prefix: str) -> FakeBatch:
        batch = FakeBatch(wire=wire, id=f"{prefix}{next(_ids):06d}", items=items)
        self.batches[batch.id] = batch
        return batch

    def _key_ok(self, request: web.Request, fmt: Any) -> bool:
        return not self.app.profile.require_key or fmt.has_key(request)

    # ------------------------------------------------------------ OpenAI

    async def openai_upload(self, request: web.Request) -> web.Response:
        if not self._key_ok(request, OpenAIFormat):
            return web.json_response(OpenAIFormat.error(401, "missing or invalid API key"), status=401)
        form = await request.post()
        upload = form.get("file")
        if form.get("purpose") != "batch" or upload is None or not hasattr(upload, "file"):
            return web.json_response(OpenAIFormat.error(400, "need purpose=batch and a file"), status=400)
        file_id = f"file-{next(_ids):06d}"
        self.files[file_id] = upload.file.read()
        return web.json_response(
            {"id": file_id, "object": "file", "purpose": "batch", "bytes": len(self.files[file_id])}
        )

    async def openai_create(self, request: web.Request) -> web.Response:
        if not self._key_ok(request, OpenAIFormat):
            return web.json_response(OpenAIFormat.error(401, "missing or invalid API key"), status=401)
        body = await request.json()
        data = self.files.get(str(body.get("input_file_id")))
        if data is None or body.get("endpoint") != "/v1/chat/completions":
            return web.json_response(OpenAIFormat.error(400, "unknown input_file_id or endpoint"), status=400)
        items = []
        for line in data.splitlines():
            if line.strip():
                req = json.loads(line)
                items.append((req["custom_id"], str(req["body"].get("model", "")), req["body"]))
        batch = self._new("openai", items, "batch_")
        return web.json_response(self._openai_obj(batch))

    def _openai_obj(self, batch: FakeBatch) -> dict[str, Any]:
        status = "validating" if batch.polls == 0 else "in_progress"
        out: dict[str, Any] = {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "status": status,
            "output_file_id": None,
            "error_file_id": None,
        }
        if batch.results is not None:
            ok = [r for r in batch.results if r[1] is not None]
            gone = [r for r in batch.results if r[1] is None]
            out["status"] = "expired" if batch.expired else "completed"
            if ok:
                fid = f"file-out-{batch.id}"
                self.files[fid] = b"".join(
                    json.dumps(
                        {
                            "id": f"req_{cid}",
                            "custom_id": cid,
                            "response": {"status_code": st, "request_id": "r", "body": payload},
                            "error": None,
                        }
                    ).encode()
                    + b"\n"
                    for cid, st, payload in ok
                )
                out["output_file_id"] = fid
            if gone:
                fid = f"file-err-{batch.id}"
                self.files[fid] = b"".join(
                    json.dumps(
                        {
                            "id": f"req_{cid}",
                            "custom_id": cid,
                            "response": None,
                            "error": {
                                "code": "batch_expired",
                                "message": "This request could not be executed before the completion window expired.",
                            },
                        }
                    ).encode()
                    + b"\n"
                    for cid, _, _ in gone
                )
                out["error_file_id"] = fid
            out["request_counts"] = {"total": len(batch.items), "completed": len(ok), "failed": len(gone)}
        return out

    async def openai_get(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if batch is None or batch.wire != "openai":
            return web.json_response(OpenAIFormat.error(404, "no such batch"), status=404)
        self._advance(batch)
        return web.json_response(self._openai_obj(batch))

    async def openai_file(self, request: web.Request) -> web.Response:
        data = self.files.get(request.match_info["id"])
        if data is None:
            return web.json_response(OpenAIFormat.error(404, "no such file"), status=404)
        return web.Response(body=data, content_type="application/jsonl")

    # ------------------------------------------------------------ Anthropic

    async def anthropic_create(self, request: web.Request) -> web.Response:
        if not self._key_ok(request, AnthropicFormat):
            return web.json_response(AnthropicFormat.error(401, "missing or invalid API key"), status=401)
        body = await request.json()
        items = [(r["custom_id"], str(r["params"].get("model", "")), r["params"]) for r in body.get("requests", [])]
        if not items:
            return web.json_response(AnthropicFormat.error(400, "requests: empty"), status=400)
        batch = self._new("anthropic", items, "msgbatch_")
        return web.json_response(self._anthropic_obj(request, batch))

    def _anthropic_obj(self, request: web.Request, batch: FakeBatch) -> dict[str, Any]:
        ended = batch.results is not None
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "results_url": f"{request.url.origin()}/v1/messages/batches/{batch.id}/results" if ended else None,
        }

    async def anthropic_get(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if batch is None or batch.wire != "anthropic":
            return web.json_response(AnthropicFormat.error(404, "no such batch"), status=404)
        self._advance(batch)
        return web.json_response(self._anthropic_obj(request, batch))

    async def anthropic_results(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if batch is None or batch.results is None:
            return web.json_response(AnthropicFormat.error(404, "no results"), status=404)
        lines = []
        for cid, status, payload in batch.results:
            if status is None:
                result: dict[str, Any] = {"type": "expired"}
            elif status == 200:
                result = {"type": "succeeded", "message": payload}
            else:
                result = {"type": "errored", "error": payload}
            lines.append(json.dumps({"custom_id": cid, "result": result}).encode())
        return web.Response(body=b"\n".join(lines) + b"\n", content_type="application/jsonl")

    # ------------------------------------------------------------ Gemini

    async def gemini_create(self, request: web.Request) -> web.Response:
        if not self._key_ok(request, GeminiFormat):
            return web.json_response(GeminiFormat.error(401, "missing or invalid API key"), status=401)
        model = request.match_info["model"]
        body = await request.json()
        reqs = (((body.get("batch") or {}).get("input_config") or {}).get("requests") or {}).get("requests") or []
        items = [((r.get("metadata") or {}).get("key", ""), model, r.get("request") or {}) for r in reqs]
        if not items:
            return web.json_response(GeminiFormat.error(400, "no inline requests"), status=400)
        batch = self._new("gemini", items, "")
        return web.json_response(self._gemini_op(batch))

    def _gemini_op(self, batch: FakeBatch) -> dict[str, Any]:
        name = f"batches/{batch.id}"
        if batch.results is None:
            state = "BATCH_STATE_PENDING" if batch.polls == 0 else "BATCH_STATE_RUNNING"
            return {"name": name, "metadata": {"name": name, "state": state}, "done": False}
        inlined = []
        for cid, status, payload in batch.results:
            if status is None:
                continue  # expired: not answered
            if status == 200:
                inlined.append({"response": payload, "metadata": {"key": cid}})
            else:
                inlined.append({"error": {"code": status, "message": json.dumps(payload)}, "metadata": {"key": cid}})
        state = "BATCH_STATE_EXPIRED" if batch.expired else "BATCH_STATE_SUCCEEDED"
        output = {"inlinedResponses": {"inlinedResponses": inlined}}
        return {
            "name": name,
            "metadata": {"name": name, "state": state, "output": output},
            "done": True,
            "response": {
                "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput",
                **output,
            },
        }

    async def gemini_get(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if batch is None or batch.wire != "gemini":
            return web.json_response(GeminiFormat.error(404, "no such batch"), status=404)
        self._advance(batch)
        return web.json_response(self._gemini_op(batch))
