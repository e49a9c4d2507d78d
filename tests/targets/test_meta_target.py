"""The `meta` baseline: metadata-only rules, no key, and honest about what it read."""

import anyio
import pytest
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from rabench.errors import UserError
from rabench.targets.base import CheckRequest
from rabench.targets.meta import EDITOR, NOTHING, PROOF, WEAK
from rabench.targets.registry import make_target, parse_target_id


def _check(path, media_type):
    target = make_target("meta")
    req = CheckRequest(
        case_id="c1", original=path, media_type=media_type, prepared=path, prepared_media_type=media_type
    )
    return target.info, anyio.run(target.check, req)


def _png(path, **text):
    info = PngInfo()
    for k, v in text.items():
        info.add_text(k, v)
    Image.new("RGB", (60, 120), "white").save(path, pnginfo=info)
    return path


def test_meta_is_a_target_id_with_no_options():
    assert parse_target_id("meta") == ("meta", None, None)
    with pytest.raises(UserError):
        make_target("meta:x=1")


def test_a_generator_named_in_the_metadata_is_a_proof(tmp_path):
    from rabench.engine.provenance.tools import tool_names

    name = tool_names("ai_generators")[0]
    info, v = _check(_png(tmp_path / "a.png", Software=name), "image/png")
    assert info.kind == "other" and info.capabilities.proofs and not info.capabilities.checks
    assert v.risk == PROOF
    assert v.reasons[0].kind == "proof" and v.reasons[0].proof_type == "ai_generator_tag"
    assert v.fields.total is None  # it reads no text


def test_an_editor_is_a_file_fact_and_plain_files_get_low_risk(tmp_path):
    from rabench.engine.provenance.tools import tool_names

    _, edited = _check(_png(tmp_path / "e.png", Software=tool_names("editors")[0]), "image/png")
    assert edited.risk == EDITOR and all(r.kind != "proof" for r in edited.reasons)
    jpg = tmp_path / "plain.jpg"
    Image.new("RGB", (60, 120), "white").save(jpg)  # a JPEG without EXIF: stripped metadata
    _, plain = _check(jpg, "image/jpeg")
    assert plain.risk in (WEAK, NOTHING) and plain.risk < EDITOR
