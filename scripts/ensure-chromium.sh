#!/usr/bin/env bash
# The report test drives Debian's Chromium (playwright's own browser download is not
# reachable here). Install it once if missing; no-op otherwise.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
echo "bootstrap: installing Debian chromium for the HTML report test"
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
