#!/usr/bin/env bash
# Installs what building and testing Voicebox needs on Debian 12 / Ubuntu, and only what is missing.
#   scripts/deps.sh build   packages to build and run the desktop app
#   scripts/deps.sh test    the above plus browsers, Xvfb and tools the tests drive
set -euo pipefail
cd "$(dirname "$0")/.."

want=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev)
if [ "${1:-build}" = test ]; then
  want+=(xvfb xauth dbus dbus-x11 chromium webkit2gtk-driver imagemagick xdotool gstreamer1.0-tools)
  # tests/packaging: validators for the packages' desktop entry, AppStream file and man page; rpm reads the .rpm
  want+=(desktop-file-utils appstream groff-base rpm)
fi
command -v node >/dev/null 2>&1 || want+=(nodejs)

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v go >/dev/null 2>&1; then
  echo "deps: Go 1.26 or newer is required (https://go.dev/dl/); put it on PATH (e.g. /usr/local/go/bin)" >&2
  exit 1
fi
go mod download
if [ "${1:-build}" = test ]; then
  go -C scripts/package mod download # the packager's own module (nfpm), for tests/packaging
fi
if [ -f frontend/package.json ] && [ "${1:-build}" = test ]; then
  (cd frontend && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
fi
