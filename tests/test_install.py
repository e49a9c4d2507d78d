"""The environment is what the Makefile promises: `import PIL` is pillow-simd."""

import importlib.metadata as md
from pathlib import Path

import PIL


def test_pil_is_provided_by_pillow_simd_not_pillow():
    owners = md.packages_distributions().get("PIL", [])
    assert owners == ["pillow-simd"], f"PIL provided by {owners}"
    simd = md.distribution("pillow-simd")
    files = {str(f) for f in simd.files or []}
    assert "PIL/__init__.py" in files
    # The module actually imported is the file pillow-simd installed.
    assert Path(PIL.__file__).resolve() == Path(simd.locate_file("PIL/__init__.py")).resolve()
    assert PIL.__version__ == simd.version


def test_pillow_distribution_is_absent():
    try:
        md.distribution("pillow")
    except md.PackageNotFoundError:
        return
    raise AssertionError("the 'pillow' distribution is installed beside pillow-simd")
