"""C2PA manifests, read offline with c2pa-python (the CAI reference library).

Why offline and untrusted: a receipt check must not reach out to whatever URL a
file names (remote manifests, OCSP), and a trust list would make results depend
on when they ran. So remote manifest fetch, OCSP and trust checks are off; the
manifest's own signature and hashes are still verified, and the validation state
is reported. What a manifest *says* (claim generator, actions with a
digitalSourceType and softwareAgent) is read whether or not the signature is
trusted: an AI generator that signs its output has said so in the file.
"""

from __future__ import annotations

import io
import json
import threading

import msgspec

from rabench.engine.provenance.xmp import source_code

MAX_MANIFEST_JSON = 4 * 1024 * 1024
SETTINGS = {
    "verify": {
        "remote_manifest_fetch": False,
        "ocsp_fetch": False,
        "verify_trust": False,
        "verify_timestamp_trust": False,
    }
}
_MIME = {"image/jpeg", "image/png", "image/webp", "image/tiff", "application/pdf"}


class C2paFacts(msgspec.Struct):
    present: bool = False
    generators: list[str] = []  # claim generator names (+ versions)
    agents: list[str] = []  # action softwareAgent names
    actions: list[str] = []  # c2pa.created, c2pa.edited, ...
    source_types: list[str] = []  # IPTC codes from actions
    validation_state: str = ""  # Valid | Invalid | Trusted | ...
    failures: list[str] = []  # validation failure codes
    signer: str = ""  # certificate common name / issuer
    problems: list[str] = []


_lock = threading.Lock()
_context = None


def _ctx():
    global _context
    with _lock:
        if _context is None:
            import c2pa

            _context = c2pa.Context.from_dict(SETTINGS)
        return _context


def read_manifest(data: bytes, media_type: str) -> C2paFacts:
    """The active manifest's statements. Never raises; ``present`` is False when there is none."""
    out = C2paFacts(generators=[], agents=[], actions=[], source_types=[], failures=[], problems=[])
    if media_type not in _MIME:
        return out
    try:
        import c2pa

        reader = c2pa.Reader.try_create(media_type, io.BytesIO(data), None, _ctx())
        if reader is None:
            return out
        with reader:
            raw = reader.json()
    except Exception as e:  # the native library raises its own error tree; any of it = unreadable
        out.present = True
        out.problems.append(f"C2PA manifest could not be read: {str(e)[:200]}")
        return out
    out.present = True
    if len(raw) > MAX_MANIFEST_JSON:
        out.problems.append("C2PA manifest JSON too large; not interpreted")
        return out
    try:
        store = json.loads(raw)
        _interpret(store, out)
    except (ValueError, TypeError, AttributeError, KeyError) as e:
        out.problems.append(f"C2PA manifest JSON not as expected: {e}")
    return out


def _interpret(store: dict, out: C2paFacts) -> None:
    out.validation_state = str(store.get("validation_state", ""))
    results = store.get("validation_results") or {}
    active = results.get("activeManifest") or {}
    out.failures = [str(f.get("code")) for f in active.get("failure", []) if isinstance(f, dict)][:32]
    manifests = store.get("manifests") or {}
    m = manifests.get(store.get("active_manifest")) or {}
    for info in m.get("claim_generator_info") or []:
        if isinstance(info, dict) and info.get("name"):
            out.generators.append(f"{info['name']} {info.get('version', '')}".strip())
    if isinstance(m.get("claim_generator"), str):
        out.generators.append(m["claim_generator"])
    sig = m.get("signature_info") or {}
    out.signer = ", ".join(str(sig[k]) for k in ("common_name", "issuer") if sig.get(k))
    for a in m.get("assertions") or []:
        if not isinstance(a, dict) or not str(a.get("label", "")).startswith("c2pa.actions"):
            continue
        for act in (a.get("data") or {}).get("actions") or []:
            if not isinstance(act, dict):
                continue
            out.actions.append(str(act.get("action", "")))
            agent = act.get("softwareAgent")
            name = agent.get("name") if isinstance(agent, dict) else agent
            if isinstance(name, str) and name:
                out.agents.append(name)
            dst = act.get("digitalSourceType")
            if isinstance(dst, str) and dst:
                out.source_types.append(source_code(dst))
