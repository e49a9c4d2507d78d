"""The provenance tool table is a typed, versioned contract decoded at import (issue 15)."""

import msgspec
import pytest

from rabench.engine.provenance import tools


def test_the_shipped_table_decodes_and_names_tools():
    assert "DALL-E" in tools.tool_names("ai_generators")
    assert [h.tool for h in tools.classify("Adobe Photoshop 25.0")] and tools.classify("plain text") == []


@pytest.mark.parametrize(
    "data, needle",
    [
        (
            b'{"version": 1, "ai_generators": [], "receipt_generators": [], "editors": [], "office": [], "oficce": []}',
            "oficce",
        ),
        (
            b'{"version": 1, "ai_generators": [{"name": "X", "patterns": ["x"], "pattern": "y"}], "receipt_generators": [], "editors": [], "office": []}',
            "pattern",
        ),
        (b'{"version": 1, "ai_generators": [], "receipt_generators": [], "editors": []}', "office"),
    ],
)
def test_a_misspelt_or_missing_key_is_refused(data, needle):
    with pytest.raises(msgspec.ValidationError, match=needle):
        tools._load(data)


def test_another_version_is_refused():
    with pytest.raises(ValueError, match="version 2"):
        tools._load(b'{"version": 2, "ai_generators": [], "receipt_generators": [], "editors": [], "office": []}')


def test_the_risk_model_file_is_a_checked_contract(tmp_path):
    from rabench.engine import risk

    good = risk.load_model()
    assert len(good.coef) == len(good.features) > 0
    bad = tmp_path / "m.json"
    bad.write_bytes(b'{"features": ["a"], "coef": [1.0], "intercept": 0.0, "intrecept": 1.0}')
    with pytest.raises(msgspec.ValidationError, match="intrecept"):
        risk.load_model(bad)
    bad.write_bytes(b'{"features": ["a", "b"], "coef": [1.0], "intercept": 0.0}')
    with pytest.raises(ValueError, match="one weight per feature"):
        risk.load_model(bad)
