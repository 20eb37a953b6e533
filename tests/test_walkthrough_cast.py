"""The committed recording (scripts/record.sh) plays the whole walkthrough:
an asciicast v2 at 100x30 whose output shows `1 / 5` ... `5 / 5` in order,
then leaves the alternate screen and shows the cursor again."""

import json
from pathlib import Path

CAST = Path(__file__).resolve().parent.parent / "screenshots" / "walkthrough.cast"


def test_cast_holds_all_five_steps_and_restores_the_terminal():
    lines = CAST.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    events = [json.loads(line) for line in lines[1:] if line.strip()]
    assert header["version"] == 2 and (header["width"], header["height"]) == (100, 30)
    times = [e[0] for e in events]
    assert times == sorted(times)
    output = "".join(e[2] for e in events if e[1] == "o")
    at = [output.find(f"{k} / 5") for k in range(1, 6)]
    assert -1 not in at and at == sorted(at)
    tail = output[at[-1]:]
    assert "\x1b[?1049l" in tail and "\x1b[?25h" in tail  # alternate screen left, cursor shown
    # Playback advanced by itself: about one dwell (2 s) per step, no keystrokes.
    assert 8 <= times[-1] <= 20
    assert not any(e[1] == "i" for e in events)
