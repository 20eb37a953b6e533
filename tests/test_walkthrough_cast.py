"""The committed recording (scripts/record.sh) plays the whole walkthrough:
an asciicast v2 at 100x30 whose output shows `1 / 5` ... `5 / 5` in order,
then leaves the alternate screen and shows the cursor again; one marker per
step (asciinema-player's chapters), labelled with the step's title."""

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



def test_cast_has_one_marker_per_step_where_the_step_appears():
    from maskattn_tui.i18n import pick
    from maskattn_tui.lesson.f12 import load_f12

    lines = CAST.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines[1:] if line.strip()]
    markers = [e for e in events if e[1] == "m"]
    assert [m[2] for m in markers] == [pick(step.title, "en") for step in load_f12().steps]
    # each sits at the output event after which the cast first shows "k / 5"
    seen, first = "", {}
    for event in events:
        if event[1] == "o":
            seen += event[2]
            for k in range(1, 6):
                if k not in first and f"{k} / 5" in seen:
                    first[k] = event[0]
    assert [m[0] for m in markers] == [first[k] for k in range(1, 6)]
