#!/bin/sh
# Prints the directories of two other bash versions, one per line, for
# `make test-bash-versions`: Debian 11's bash 5.1 and Debian unstable's
# newest bash, each as DIR/NAME/path/bash. The persistent shell's turn
# builtin is built against bash's exported functions, so its tests run on
# more than the machine's own bash. The packages are downloaded with
# apt-get into a private apt state (so the archive's signatures are
# checked) and unpacked with dpkg -x: nothing is installed on the machine.
# Unstable's bash needs a newer C library than the host may have, so it
# runs through unstable's own dynamic loader and libraries (a wrapper).
set -eu
dir=${1:-build/bash-versions}
command -v apt-get >/dev/null 2>&1 || { echo "fetch.sh: needs apt-get (Debian)" >&2; exit 1; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
arch=$(dpkg --print-architecture)
triplet=$(gcc -dumpmachine 2>/dev/null || echo "$(uname -m)-linux-gnu")

# fetch SUITE NAME PACKAGE... downloads the packages of SUITE and unpacks
# them into DIR/NAME.
fetch() {
  suite=$1 name=$2; shift 2
  root=$dir/$name
  if [ -f "$root/.complete" ]; then return 0; fi
  rm -rf "$root" && mkdir -p "$root/apt/lists/partial" "$root/apt/cache/archives/partial" "$root/debs"
  echo "deb http://deb.debian.org/debian $suite main" > "$root/apt/sources.list"
  # An empty package status: apt otherwise takes the host's installed
  # bash for the version to download.
  : > "$root/apt/status"
  apt="-o Dir::Etc::SourceList=$root/apt/sources.list -o Dir::Etc::SourceParts=/dev/null
       -o Dir::State::Lists=$root/apt/lists -o Dir::State::status=$root/apt/status -o Dir::Cache=$root/apt/cache
       -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o APT::Architecture=$arch -q"
  # shellcheck disable=SC2086
  apt-get $apt update >&2 || { echo "fetch.sh: apt-get update of Debian $suite failed" >&2; exit 1; }
  (cd "$root/debs" && apt-get $apt download "$@" >&2) ||
    { echo "fetch.sh: downloading $* from Debian $suite failed" >&2; exit 1; }
  for deb in "$root"/debs/*.deb; do dpkg -x "$deb" "$root"; done
  rm -rf "$root/debs" "$root/apt"
  touch "$root/.complete"
}

# binary NAME is the bash a package of DIR/NAME unpacked (/bin before
# Debian merged /usr, /usr/bin after).
binary() {
  for b in "$dir/$1/usr/bin/bash" "$dir/$1/bin/bash"; do
    if [ -f "$b" ] && [ ! -L "$b" ]; then echo "$b"; return 0; fi
  done
  echo "fetch.sh: no bash in $dir/$1" >&2; exit 1
}

fetch bullseye 5.1 bash
mkdir -p "$dir/5.1/path"
ln -sf "$(binary 5.1)" "$dir/5.1/path/bash"

fetch sid unstable bash libc6 libtinfo6
lib=$dir/unstable/usr/lib/$triplet
loader=$(ls "$lib"/ld-linux*.so.* 2>/dev/null | head -n 1)
[ -n "$loader" ] || { echo "fetch.sh: no dynamic loader in unstable's libc6 ($lib)" >&2; exit 1; }
mkdir -p "$dir/unstable/path"
cat > "$dir/unstable/path/bash" <<WRAP
#!/bin/sh
exec '$loader' --library-path '$lib' '$(binary unstable)' "\$@"
WRAP
chmod +x "$dir/unstable/path/bash"

for name in 5.1 unstable; do
  "$dir/$name/path/bash" -c 'exit 0' || { echo "fetch.sh: $dir/$name/path/bash does not run" >&2; exit 1; }
  echo "$dir/$name/path"
done
