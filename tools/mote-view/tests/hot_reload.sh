#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mote-view's hot reload, as an editor saves (a new file renamed over the old): a valid edit is
# reloaded ('reloaded FILE' on stderr); a broken one prints its located diagnostics and the old
# effect keeps running; the run ends at --quit-after with exit 0 and a window screenshot.
#   hot_reload.sh MOTE_VIEW EXAMPLE.json WORKDIR
set -euo pipefail
view="$1" example="$2" work="$3"
rm -rf "$work"
mkdir -p "$work"
cp "$example" "$work/fx.json"
export SDL_VIDEODRIVER="${SDL_VIDEODRIVER:-offscreen}"
"$view" "$work/fx.json" --size 160x120 --quit-after 8 --window-screenshot "$work/end.png" \
  2>"$work/stderr.txt" &
pid=$!
# Wait for the window (the effect loaded, framed and watched) before editing.
for _ in $(seq 1 400); do
  grep -q "^watching" "$work/stderr.txt" 2>/dev/null && break
  [[ -d /proc/$pid ]] || break
  sleep 0.05
done
sleep 0.5
sed 's/"rate": 420/"rate": 42/' "$work/fx.json" >"$work/.fx.json.tmp"
mv "$work/.fx.json.tmp" "$work/fx.json"
if cmp -s "$example" "$work/fx.json"; then
  echo "the edit changed nothing"
  kill "$pid" 2>/dev/null
  exit 1
fi
sleep 2
grep -q "reloaded $work/fx.json" "$work/stderr.txt" || {
  echo "no 'reloaded' line 2 s after a valid edit:"
  cat "$work/stderr.txt"
  kill "$pid" 2>/dev/null
  exit 1
}
printf '{"format": "mote.effect/1", "emitters": [ {"name": 3} ]}\n' >"$work/.fx.json.tmp"
mv "$work/.fx.json.tmp" "$work/fx.json"
status=0
wait "$pid" || status=$?
cat "$work/stderr.txt"
[[ "$status" -eq 0 ]] || { echo "mote-view exited $status"; exit 1; }
[[ -s "$work/end.png" ]] || { echo "no window screenshot"; exit 1; }
echo "hot reload: valid edit reloaded, broken edit reported, exit 0"
