#!/usr/bin/env bash
# Record the walkthrough with no keystrokes: screenshots/walkthrough.cast.
#
#   scripts/record.sh [OUT.cast] [DWELL]
#
# Needs asciinema (a dev tool, not a runtime dependency of maskattn-tui):
#   pip install asciinema==2.4.0        # or: pip install -e '.[dev]'
# and maskattn-tui on PATH (or in .venv/bin or $VIRTUAL_ENV/bin).
# Installs nothing itself. Records at a fixed 100x30, English, 256 colours
# + truecolor, then adds one marker per step (asciicast v2 "m" events, which
# asciinema-player shows as chapters) where "k / 5" first appears, labelled
# with the step's title (from `maskattn-tui json`), and checks the cast holds
# "1 / 5" ... "5 / 5" in order.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-screenshots/walkthrough.cast}"
dwell="${2:-2}"
for dir in "${VIRTUAL_ENV:-}/bin" .venv/bin; do
    [ -x "$dir/maskattn-tui" ] && PATH="$(cd "$dir" && pwd):$PATH"
done
command -v asciinema >/dev/null || { echo "record.sh: asciinema not found (pip install asciinema==2.4.0)" >&2; exit 2; }
command -v maskattn-tui >/dev/null || { echo "record.sh: maskattn-tui not found (pip install -e .)" >&2; exit 2; }

# A clean, fixed environment: the recording must not depend on the caller's.
env -i PATH="$PATH" HOME="${HOME:-/tmp}" TERM=xterm-256color COLORTERM=truecolor LANG=C.UTF-8 \
    asciinema rec --overwrite -q --cols 100 --rows 30 -t "maskattn-tui walkthrough" \
    -c "maskattn-tui --lang en --play --dwell $dwell --exit-at-end" "$out"

titles="$(env -i PATH="$PATH" HOME="${HOME:-/tmp}" LANG=C.UTF-8 maskattn-tui json --lang en)"
python3 - "$out" "$titles" <<'PY'
import json, sys
path, titles = sys.argv[1], [step["title"] for step in json.loads(sys.argv[2])["steps"]]
with open(path, encoding="utf-8") as f:
    header_line = f.readline()
    header = json.loads(header_line)
    events = [json.loads(line) for line in f if line.strip() and json.loads(line)[1] != "m"]
output = "".join(e[2] for e in events if e[1] == "o")
at = [output.find(f"{k} / 5") for k in range(1, 6)]
if -1 in at or at != sorted(at):
    sys.exit(f"record.sh: {path} does not show steps 1..5 in order: {at}")
if "\x1b[?1049l" not in output[at[-1]:]:
    sys.exit(f"record.sh: {path}: the app did not leave the alternate screen")
# one marker per step, at the output event that first shows "k / 5"
markers, seen, k = [], "", 1
for event in events:
    if event[1] == "o":
        seen += event[2]
        while k <= 5 and f"{k} / 5" in seen:
            markers.append([event[0], "m", titles[k - 1]])
            k += 1
merged = sorted(events + markers, key=lambda e: (e[0], e[1] != "m"))
with open(path, "w", encoding="utf-8") as f:
    f.write(header_line)
    f.writelines(json.dumps(e, ensure_ascii=False) + "\n" for e in merged)
print(f"{path}: {header['width']}x{header['height']}, {events[-1][0]:.1f} s, "
      f"{len(events)} events, steps 1-5 in order, {len(markers)} markers, terminal restored")
PY
