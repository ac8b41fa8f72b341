#!/usr/bin/env bash
# Installs what building and testing Voicebox needs on Debian 12 / Ubuntu, and only what is missing.
#   scripts/deps.sh build [packages|modules]   to build and run the desktop app
#   scripts/deps.sh test  [packages|modules]   the above plus browsers, Xvfb and tools the tests drive
# `packages` does only the apt part, `modules` only Go's and npm's (no root needed); neither does both.
# `make test` runs the two apart, so the unit tests can run while apt works (see the Makefile).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-build}
part=${2:-all}

packages() {
  local want=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev)
  if [ "$kind" = test ]; then
    want+=(xvfb xauth dbus dbus-x11 chromium webkit2gtk-driver imagemagick xdotool gstreamer1.0-tools)
    # tests/packaging: validators for the packages' desktop entry, AppStream file and man page; rpm reads the .rpm
    want+=(desktop-file-utils appstream groff-base rpm)
    # tests/desktop: xclip sets and reads the X clipboard the desktop's copies land on
    want+=(xclip)
  fi
  command -v node >/dev/null 2>&1 || want+=(nodejs)

  local missing=() p
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "deps: installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

modules() {
  if ! command -v go >/dev/null 2>&1; then
    echo "deps: Go 1.26 or newer is required (https://go.dev/dl/); put it on PATH (e.g. /usr/local/go/bin)" >&2
    exit 1
  fi
  go mod download
  if [ "$kind" = test ]; then
    go -C scripts/package mod download # the packager's own module (nfpm), for tests/packaging
    if [ -L frontend/node_modules ]; then
      # a worktree sharing another checkout's install: npm ci would follow the link and empty it
      echo "deps: frontend/node_modules is a link; leaving the install it points to alone"
    elif command -v npm >/dev/null 2>&1; then
      (cd frontend && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
      # the MCP Apps project's published example servers, run by backend/mcpclient's tests (docs/mcp-apps.md)
      (cd tests/mcpapps && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
    else
      echo "deps: npm is missing; the apt step installs nodejs, then run scripts/deps.sh test modules again" >&2
    fi
  fi
}

case $part in
  packages) packages ;;
  modules) modules ;;
  all) packages; modules ;;
  *) echo "usage: scripts/deps.sh build|test [packages|modules]" >&2; exit 2 ;;
esac
