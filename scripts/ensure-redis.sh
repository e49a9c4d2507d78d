#!/usr/bin/env bash
# The cluster tests start Debian's redis-server on a free loopback port (no persistence) and
# stop it. Install it once if missing; no-op otherwise.
set -euo pipefail
command -v redis-server >/dev/null 2>&1 && exit 0
echo "bootstrap: installing Debian redis-server for the cluster tests"
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null
