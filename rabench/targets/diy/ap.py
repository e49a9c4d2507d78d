"""The AP prompt with the bundle inlined: what a DIY model reads for one AP case.

Why text inlined and images attached: every wire carries one prompt text and images. Each
invoice or credit-note page goes as an image, prepared like a receipt (``more_images`` adds
the second and later ones to the request the wire built, in the wire's own part shape); JSON,
CSV, e-mails and the policy are text and go in the prompt verbatim (cut at ``MAX_DOC_CHARS``
each). At most ``MAX_IMAGES`` images; a document past that is named as not attached.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rabench.targets.ap_request import APInput, APRequest
from rabench.targets.diy.ap_answer import ap_prompt_text

MAX_DOC_CHARS = 20_000


MAX_IMAGES = 8


def images(request: APRequest) -> list[APInput]:
    """The documents sent as images, in bundle order (the first is the request's own image)."""
    return [d for d in request.documents if d.prepared is not None][:MAX_IMAGES]


def _body(doc: APInput, attached: list[APInput]) -> str:
    if doc.prepared is not None:
        if doc in attached:
            return f"(attached image {attached.index(doc) + 1})"
        return "(an image, not attached: too many images in one request)"
    return doc.text(MAX_DOC_CHARS)


def ap_prompt(request: APRequest) -> str:
    parts = [ap_prompt_text()]
    if request.submitted_at:
        parts.append(f"The invoice reached AP on {request.submitted_at}.")
    attached = images(request)
    for doc in request.documents:
        parts.append(f"=== document: {doc.name} ({doc.role}, {doc.media_type}) ===\n{_body(doc, attached)}")
    return "\n\n".join(parts)


def more_images(body: dict[str, Any], first_b64: str, first_type: str, extra: list[tuple[str, str]]) -> None:
    """Add images after the first one in a request body built by any wire: the part holding
    ``first_b64`` is copied once per extra image with its data and media type replaced."""
    if not extra:
        return

    def find(node: Any) -> tuple[list[Any], int] | None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                if first_b64 in msgspec.json.encode(item).decode() and isinstance(item, dict) and _holds(item):
                    return node, i
                got = find(item)
                if got is not None:
                    return got
        elif isinstance(node, dict):
            for value in node.values():
                got = find(value)
                if got is not None:
                    return got
        return None

    def _holds(item: dict[str, Any]) -> bool:  # the image part itself, not a message holding it
        return not any(isinstance(v, list) for v in item.values())

    where = find(body)
    if where is None:
        raise ValueError("no image part in the request body")
    parts, i = where
    template = msgspec.json.encode(parts[i]).decode()
    for k, (b64, media) in enumerate(extra, start=1):
        parts.insert(i + k, msgspec.json.decode(template.replace(first_b64, b64).replace(first_type, media)))
