#!/usr/bin/env bash
# Import ../shared/realdata/us-photos-dev with the hand labels of bench/realdata/us-photos-dev-labels.csv.
#
#   bash scripts/import-us-photos.sh [SRC] [OUT]
#     SRC  default ../shared/realdata/us-photos-dev
#     OUT  default cases/real-us-labelled
#
# Why a script: 1158-receipt.jpg is a PNG named .jpg, and the importer takes a file's type from its
# bytes and refuses a name whose extension says otherwise. The photos are copied into a temporary
# folder outside the repository (symlinks leading out of SRC are refused by the importer), each
# renamed to the suffix its first bytes show, and imported from there; the labels file names
# 1158-receipt.png. The copies are removed afterwards; the originals are only read.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
src="${1:-$here/../shared/realdata/us-photos-dev}"
out="${2:-$here/cases/real-us-labelled}"
labels="$here/bench/realdata/us-photos-dev-labels.csv"
py="${PYTHON:-$here/.venv/bin/python}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/us-photos-dev"
for f in "$src"/*; do
  [ -f "$f" ] || continue
  name="$(basename "$f")"
  case "$name" in *.jpg|*.jpeg|*.png) ;; *) continue ;; esac
  magic="$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')"
  stem="${name%.*}"
  case "$magic" in
    89504e47) cp "$f" "$tmp/us-photos-dev/$stem.png" ;;
    ffd8ff*) cp "$f" "$tmp/us-photos-dev/$stem.jpg" ;;
    *) echo "error: $f is neither JPEG nor PNG" >&2; exit 2 ;;
  esac
done
"$py" -m rabench cases import --format folder "$tmp/us-photos-dev" --labels "$labels" --out "$out"
