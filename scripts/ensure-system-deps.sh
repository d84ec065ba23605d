#!/usr/bin/env bash
# Make sure the machine can run the GUI tests: Xvfb and the X/OpenGL libraries Qt's xcb platform needs.
# On Debian/Ubuntu as root, install what is missing with apt; otherwise print the one command to run.
set -uo pipefail
PKGS="xvfb xauth libgl1 libglx-mesa0 libgl1-mesa-dri libegl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 \
libfreetype6 libdbus-1-3 libglib2.0-0 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 \
libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xfixes0 libxcb-xkb1 libxcb-glx0 fonts-dejavu-core"

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
else
  command -v xvfb-run >/dev/null 2>&1 || missing="xvfb"
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages for the GUI tests:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $missing >/dev/null
  exit $?
fi
echo "The GUI tests need Xvfb and Qt's X11 libraries. Run once:"
if command -v apt-get >/dev/null 2>&1; then
  echo "  sudo apt-get install -y --no-install-recommends$missing"
else
  echo "  (install Xvfb and the xcb/OpenGL libraries of your distribution:$missing)"
fi
exit 1
