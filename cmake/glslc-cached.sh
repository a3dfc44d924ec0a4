#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# glslc through a content cache, as ccache is for the C++ compiler (src/gpu/CMakeLists.txt runs
# every shader build through it): the key is glslc's version, its flags and the shader as the
# preprocessor sees it (every include expanded; the folders in its #line markers dropped, so a new
# clone or build folder hits), and the value is glslc's output, which does not depend on where the
# files lie. The exact interpreter shaders take glslc half a minute each, in every preset and
# every fresh clone; a hit is one preprocessor run (a fraction of a second).
#
#   glslc-cached.sh GLSLC [glslc's arguments: flags, -I DIR, -MD -MF DEPFILE, -o OUT, SHADER]
#
# The cache is MOTE_SPIRV_CACHE_DIR (default: ~/.cache/mote/spirv), at most 200 entries (about
# 150 MB; the oldest used go first). Anything unexpected — an argument it does not know, a
# preprocessor error, a cache it cannot write — runs glslc as asked, so errors read as glslc's own.
set -euo pipefail
glslc=$1
shift
args=("$@")
out="" depfile="" shader=""
pre=()  # the arguments the preprocessor run needs: defines, includes, the target
key=()  # the arguments that change the output: everything but paths
i=0
while ((i < ${#args[@]})); do
  a=${args[i]}
  case "$a" in
    -o) out=${args[i + 1]}; i=$((i + 2)); continue ;;
    -MF) depfile=${args[i + 1]}; i=$((i + 2)); continue ;;
    -MD) ;;
    -I) pre+=(-I "${args[i + 1]}"); i=$((i + 2)); continue ;;
    -D*|--target-env=*) pre+=("$a"); key+=("$a") ;;
    -O|-O0|-Os|-Werror|-mfmt=num) key+=("$a") ;;
    -*) exec "$glslc" "${args[@]}" ;;  # unknown to this script: no caching
    *) shader=$a ;;
  esac
  i=$((i + 1))
done
[[ -n "$out" && -n "$depfile" && -n "$shader" ]] || exec "$glslc" "${args[@]}"

cache=${MOTE_SPIRV_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-}/.cache}/mote/spirv}
tmp=$(mktemp -d 2>/dev/null) || exec "$glslc" "${args[@]}"
trap 'rm -rf "$tmp"' EXIT
# The preprocessed shader and, for a hit, the depfile naming this output.
if ! "$glslc" "${pre[@]}" -E -MD -MF "$tmp/deps" -MT "$out" -o "$tmp/source" "$shader" 2>/dev/null;
then
  exec "$glslc" "${args[@]}"
fi
digest=$( {
  "$glslc" --version
  printf '%s\n' "${key[@]}" "$(basename "$shader")"
  sed -E 's|^(#line [0-9]+ ")[^"]*/|\1|' "$tmp/source"
} | sha256sum | cut -c1-40)
entry="$cache/$digest.spv.inc"
if [[ -s "$entry" ]]; then
  cp "$entry" "$out"
  cp "$tmp/deps" "$depfile"
  touch "$entry" 2>/dev/null || true
  exit 0
fi
"$glslc" "${args[@]}"
if mkdir -p "$cache" 2>/dev/null && cp "$out" "$entry.$$" 2>/dev/null; then
  mv -f "$entry.$$" "$entry" 2>/dev/null || rm -f "$entry.$$"
  # Bounded: the oldest used beyond 200 go.
  ls -t "$cache"/*.spv.inc 2>/dev/null | tail -n +201 | xargs -r rm -f || true
fi
