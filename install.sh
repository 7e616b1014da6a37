#!/bin/sh
# Installs verdict without npm: picks this machine's release archive, checks it against SHA256SUMS, and
# puts the binary in PREFIX/bin (default ~/.local/bin).
#
#   sh install.sh [--prefix DIR] [--version V] [--from URL_OR_FOLDER]
#   sh install.sh --uninstall [--prefix DIR]
#
# --from is where the release's files are (verdict-<version>-<target>.tar.gz and SHA256SUMS): a folder,
# or an https:// URL (default: $VERDICT_RELEASE_URL). An archive whose sum does not match is never installed.
set -eu

prefix="${HOME}/.local"
version=""
from="${VERDICT_RELEASE_URL:-}"
uninstall=0

die() { echo "verdict install: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --version) [ $# -ge 2 ] || die "--version needs a version"; version="$2"; shift 2 ;;
    --version=*) version="${1#--version=}"; shift ;;
    --from) [ $# -ge 2 ] || die "--from needs a URL or a folder"; from="$2"; shift 2 ;;
    --from=*) from="${1#--from=}"; shift ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

bin="${prefix}/bin"
if [ "$uninstall" = 1 ]; then
  if [ -e "${bin}/verdict" ]; then rm -f "${bin}/verdict"; echo "removed ${bin}/verdict"; else echo "no verdict in ${bin}"; fi
  echo "verdict's hooks stay in the hosts' settings until you run verdict uninstall <host> (before removing it), or delete them by hand."
  exit 0
fi
[ -n "$from" ] || die "say where the release is: --from URL_OR_FOLDER (or set VERDICT_RELEASE_URL)"

# This machine's target, named as build.ts names them.
os="$(uname -s)"; arch="$(uname -m)"
case "$os" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) die "no release for $os; build verdict from source (see the README)" ;;
esac
case "$arch" in
  x86_64|amd64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) die "no release for $arch; build verdict from source (see the README)" ;;
esac
target="${os}-${arch}"
if [ "$os" = linux ] && { ls /lib/ld-musl-* >/dev/null 2>&1 || { command -v ldd >/dev/null 2>&1 && ldd --version 2>&1 | grep -qi musl; }; }; then
  [ "$arch" = x64 ] || die "no musl release for $arch; build verdict from source (see the README)"
  target="linux-x64-musl"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT INT TERM

fetch() { # fetch NAME -> $work/NAME
  case "$from" in
    http://*|https://*)
      if command -v curl >/dev/null 2>&1; then curl -fsSL "${from%/}/$1" -o "$work/$1" || die "cannot download ${from%/}/$1"
      elif command -v wget >/dev/null 2>&1; then wget -q "${from%/}/$1" -O "$work/$1" || die "cannot download ${from%/}/$1"
      else die "neither curl nor wget is here to download ${from%/}/$1"; fi ;;
    *) [ -f "${from%/}/$1" ] || die "${from%/}/$1 does not exist"; cp "${from%/}/$1" "$work/$1" ;;
  esac
}

fetch SHA256SUMS
if [ -z "$version" ]; then
  version="$(sed -n "s/^[0-9a-f]\{64\}  verdict-\(.*\)-${target}\.tar\.gz\$/\1/p" "$work/SHA256SUMS" | head -n 1)"
  [ -n "$version" ] || die "SHA256SUMS lists no archive for ${target}"
fi
archive="verdict-${version}-${target}.tar.gz"
expected="$(awk -v name="$archive" '$2 == name { print $1 }' "$work/SHA256SUMS")"
[ -n "$expected" ] || die "SHA256SUMS lists no ${archive}"
fetch "$archive"
if command -v sha256sum >/dev/null 2>&1; then actual="$(sha256sum "$work/$archive" | awk '{ print $1 }')"
elif command -v shasum >/dev/null 2>&1; then actual="$(shasum -a 256 "$work/$archive" | awk '{ print $1 }')"
else die "neither sha256sum nor shasum is here to check the archive"; fi
[ "$actual" = "$expected" ] || die "${archive} does not match SHA256SUMS (expected ${expected}, got ${actual}); nothing was installed"

tar -xzf "$work/$archive" -C "$work" verdict || die "cannot unpack ${archive}"
"$work/verdict" --version >/dev/null 2>&1 || die "the unpacked verdict does not run on this machine"
mkdir -p "$bin"
cp "$work/verdict" "${bin}/verdict.tmp.$$"
chmod 755 "${bin}/verdict.tmp.$$"
mv -f "${bin}/verdict.tmp.$$" "${bin}/verdict"
echo "installed $("${bin}/verdict" --version) as ${bin}/verdict"
case ":${PATH}:" in
  *":${bin}:"*) ;;
  *) echo "${bin} is not on PATH: add it (e.g. export PATH=\"${bin}:\$PATH\" in your shell's profile), since hooks run \`verdict\` from PATH." ;;
esac
