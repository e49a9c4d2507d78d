#!/usr/bin/env bash
# Create/refresh the virtualenv. Order matters: everything else first, then
# pillow-simd force-reinstalled without deps *after* removing `pillow`, so that
# `import PIL` always loads pillow-simd even though rapidocr/fpdf2 require `pillow`.
set -euo pipefail
python=$1 venv=$2 simd=$3

need_debs=()
for h in /usr/include/jpeglib.h /usr/include/zlib.h /usr/include/freetype2/ft2build.h; do
  [ -e "$h" ] || need_debs=(libjpeg-dev zlib1g-dev libfreetype-dev libpng-dev)
done
if [ ${#need_debs[@]} -gt 0 ]; then
  echo "bootstrap: installing build headers for pillow-simd: ${need_debs[*]}"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_debs[@]}" >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_debs[@]}" >/dev/null; fi
fi
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -c constraints.txt -e '.[test]'
"$venv/bin/python" -m pip uninstall -q -y pillow 2>/dev/null || true
"$venv/bin/python" -m pip install -q --no-deps --force-reinstall "$simd"
"$venv/bin/python" - <<'PY'
import importlib.metadata as md, PIL
owners = md.packages_distributions().get("PIL", [])
assert owners == ["pillow-simd"], f"PIL is provided by {owners}, expected pillow-simd only"
print(f"bootstrap: PIL {PIL.__version__} from pillow-simd")
PY
