#!/bin/sh
# Prints the path of a Python 3.9 interpreter, for `make test-py39`: the
# package claims Python 3.9+, so its tests run on 3.9 too. One named by
# $PYTHON39, a python3.9 on PATH or one of pyenv's is used as it is;
# otherwise (or with PY39_FROM_DEBIAN=1) Debian 11's python3.9
# packages (the last Debian release with 3.9) are downloaded with apt-get
# into a private apt state and unpacked with dpkg -x: nothing is installed
# on the machine. Run the interpreter with LD_LIBRARY_PATH=DIR/usr/lib/
# x86_64-linux-gnu (or the aarch64 one): its ssl, ctypes and decimal
# modules need bullseye's libssl1.1, libffi7 and libmpdec3.
set -eu
dir=${1:-build/python3.9}
is39() { "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 9))' >/dev/null 2>&1; }
if [ -n "${PYTHON39:-}" ]; then
  is39 "$PYTHON39" || { echo "fetch.sh: PYTHON39=$PYTHON39 is not a working Python 3.9" >&2; exit 1; }
  echo "$PYTHON39"; exit 0
fi
if [ -z "${PY39_FROM_DEBIAN:-}" ]; then
  # A python3.9 on PATH, or one pyenv has (the shim alone fails when 3.9 is
  # not selected, so its versions are tried directly).
  root=$(pyenv root 2>/dev/null || true)
  for py in "$(command -v python3.9 || true)" ${root:+"$root"/versions/3.9*/bin/python3.9}; do
    if [ -n "$py" ] && is39 "$py"; then echo "$py"; exit 0; fi
  done
fi
if [ -x "$dir/usr/bin/python3.9" ] && [ -f "$dir/.complete" ]; then echo "$(cd "$dir" && pwd)/usr/bin/python3.9"; exit 0; fi
command -v apt-get >/dev/null 2>&1 || {
  echo "fetch.sh: no python3.9 here and no apt-get to fetch one; set PYTHON39 to a Python 3.9" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs"
dir=$(cd "$dir" && pwd)
echo "deb http://deb.debian.org/debian bullseye main" > "$dir/apt/sources.list"
apt="-o Dir::Etc::SourceList=$dir/apt/sources.list -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists=$dir/apt/lists -o Dir::Cache=$dir/apt/cache
     -o Debug::NoLocking=1 -o APT::Sandbox::User=root -q"
# shellcheck disable=SC2086
apt-get $apt update >&2 || { echo "fetch.sh: apt-get update of Debian bullseye failed" >&2; exit 1; }
# Versions pinned to bullseye's, so apt never picks the host's newer ones.
v=3.9.2-1
cd "$dir/debs"
# shellcheck disable=SC2086
apt-get $apt download python3.9-minimal=$v libpython3.9-minimal=$v libpython3.9-stdlib=$v \
  python3.9=$v python3-distutils=$v python3-lib2to3=$v libssl1.1 libffi7 libmpdec3 >&2 ||
  { echo "fetch.sh: downloading Debian bullseye's python3.9 failed" >&2; exit 1; }
for deb in ./*.deb; do dpkg -x "$deb" "$dir"; done
rm -rf "$dir/debs" "$dir/apt"
touch "$dir/.complete"
echo "$dir/usr/bin/python3.9"
