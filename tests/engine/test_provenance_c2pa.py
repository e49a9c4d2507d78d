"""C2PA manifests signed offline with a throwaway certificate, read back offline."""

from __future__ import annotations

import io

import c2pa
import pytest

from _fx_certs import make_chain
from _fx_receipts import jpeg_bytes, receipt
from rabench.engine.provenance import file_signals
from rabench.engine.provenance.c2pa import SETTINGS

IPTC = "http://cv.iptc.org/newscodes/digitalsourcetype/"


def sign(fmt: str, source: bytes, generator: str, source_type: str, agent: str) -> bytes:
    key_pem, chain = make_chain()
    ctx = c2pa.Context.from_dict(SETTINGS)
    signer = c2pa.Signer.from_info(c2pa.C2paSignerInfo(c2pa.C2paSigningAlg.ES256, chain, key_pem, None))
    manifest = {
        "claim_generator_info": [{"name": generator, "version": "1.0"}],
        "title": "receipt",
        "assertions": [
            {
                "label": "c2pa.actions",
                "data": {
                    "actions": [
                        {
                            "action": "c2pa.created",
                            "digitalSourceType": IPTC + source_type,
                            "softwareAgent": {"name": agent},
                        }
                    ]
                },
            }
        ],
    }
    out = io.BytesIO()
    c2pa.Builder.from_json(manifest, ctx).sign(signer, fmt, io.BytesIO(source), out)
    return out.getvalue()


@pytest.fixture(scope="module")
def receipt_jpeg():
    img, _ = receipt()
    return jpeg_bytes(img, 85)


def test_ai_generator_manifest_gives_both_proofs(tmp_path, receipt_jpeg):
    data = sign("image/jpeg", receipt_jpeg, "DALL-E", "trainedAlgorithmicMedia", "DALL-E 3")
    p = tmp_path / "ai.jpg"
    p.write_bytes(data)
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    proofs = {s.proof_type: s for s in sigs if s.kind == "proof"}
    assert set(proofs) == {"ai_generator_tag", "ai_source_type"}
    assert "C2PA" in proofs["ai_generator_tag"].text and "DALL-E" in proofs["ai_generator_tag"].text
    fact = [s for s in sigs if s.name == "c2pa.manifest"]
    assert fact and "Valid" in fact[0].text and "rabench test signer" in fact[0].text


def test_camera_capture_manifest_is_only_a_fact(tmp_path, receipt_jpeg):
    data = sign("image/jpeg", receipt_jpeg, "Leica Camera", "digitalCapture", "Leica M11-P")
    p = tmp_path / "cam.jpg"
    p.write_bytes(data)
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    assert not [s for s in sigs if s.kind == "proof"]
    assert any(s.name == "c2pa.manifest" for s in sigs)
    assert any(s.name == "provenance.source_type" and "digitalCapture" in s.text for s in sigs)


def test_png_manifest_in_cabx_chunk(tmp_path):
    img, _ = receipt()
    buf = io.BytesIO()
    img.save(buf, "PNG")
    data = sign("image/png", buf.getvalue(), "Midjourney", "trainedAlgorithmicMedia", "Midjourney v6")
    assert b"caBX" in data
    p = tmp_path / "ai.png"
    p.write_bytes(data)
    assert {s.proof_type for s in file_signals(p, "image/png", printed_date=None)} >= {
        "ai_generator_tag",
        "ai_source_type",
    }


def test_file_changed_after_signing_is_reported(tmp_path, receipt_jpeg):
    data = bytearray(sign("image/jpeg", receipt_jpeg, "Leica Camera", "digitalCapture", "Leica M11-P"))
    data[-200] ^= 0xFF  # flip a byte in the image data, after the manifest
    p = tmp_path / "t.jpg"
    p.write_bytes(bytes(data))
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    assert any(s.name == "c2pa.validation_failed" for s in sigs)
    assert not [s for s in sigs if s.kind == "proof"]
