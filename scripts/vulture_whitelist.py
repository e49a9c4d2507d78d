"""Names vulture reports as unused that are used where it cannot see (tests/test_lint.py runs it).

Each entry says why. Dead code is removed, not listed here.
"""

# Targets are made by name: rabench/targets/registry.py maps "null", "meta", "self" to these strings.
make_null_target
make_meta_target
make_self_target

# Fields of msgspec Structs and dataclasses: written to files or read by users, not by our code.
rabench_version  # (RunManifest, run.json)
baseline_value  # (Row, rows.json)
min_stratum_cases  # (rows.json settings)
img_kind  # (the report viewer's case data)
symbols  # (currency table in rabench/data)
languages  # (currency table in rabench/data)
about  # (tax-rate table in rabench/data)
gap_days  # (photo-date fact, in diagnostics)
photoshop_irb  # (container facts)
has_gps  # (EXIF facts)
aliasing  # (thumbnail comparison record: set by keyword, kept with the other measurements)
memo_hits  # (PrepCache.stats, read by benchmarks and tests)
units_total  # (RunSummary)
not_started  # (RunSummary)

# ToolTable (rabench/data/provenance_tools.json): each category is read by getattr(table, cat).
ai_generators
receipt_generators
editors
office

# Settings of the fpdf2 library, set on its object.
core_fonts_encoding
c_margin  # (rabench/cases/ap/render.py)
xmp_metadata

# The catalogue of allowed values, kept beside the code that uses the values one by one.
LAYOUTS  # (rabench/cases/synth/catalogue.py)
TAX_STYLES  # (rabench/cases/synth/till.py)

# The Suite protocol's declared parts (rabench/suites/base.py), read by the registry's callers
# and by the tests through getattr; SUITE is what the registry loads by name.
request_type
answer_type
generate_help
SUITE
rules  # (rabench/cases/ap/relations.py FamilyFit: the fitted tree, kept for printing)
