"""Short texts about the calls of a capture, and `Capture.summary()`: one
line per distinct mask (its shape, where it came from, the doctor's
reading), with the calls that used it."""

from __future__ import annotations

import re

from maskattn_tui.capture.folder import mask_hashes
from maskattn_tui.i18n import t


def mask_users(calls: list[dict]) -> dict[str, list[dict]]:
    """hash -> the calls whose table it is (first use first)."""
    out: dict[str, list[dict]] = {}
    for call in calls:
        for digest in dict.fromkeys(mask_hashes(call)):
            out.setdefault(digest, []).append(call)
    return out


def ranges(numbers, most: int | None = None) -> str:
    """[0, 1, 2, 5] -> "0-2, 5"; past `most` runs, "… +N" (how many more runs)."""
    values = sorted(set(numbers))
    parts, start = [], None
    for i, n in enumerate(values):
        if start is None:
            start = n
        if i + 1 == len(values) or values[i + 1] != n + 1:
            parts.append(str(start) if start == n else f"{start}-{n}")
            start = None
    if most is not None and len(parts) > most:
        return ", ".join(parts[:most]) + f", \u2026 +{len(parts) - most}"
    return ", ".join(parts)


#: Runs of call numbers a line names (a layer's mask in a 100,000-call run is
#: used by 33,000 calls that no one reads one by one; --json lists them all).
CALLS_SHOWN = 24


def calls_text(calls: list[dict]) -> str:
    return "#" + ranges((c["call"] for c in calls), CALLS_SHOWN) if calls else "-"


_NUMBER = re.compile(r"\.(\d+)\.")


def sites_text(calls: list[dict], limit: int = 3) -> str:
    """Module paths, the layer numbers folded: model.layers.{0-3}.self_attn."""
    folded: dict[str, list[int]] = {}
    for call in calls:
        site = call.get("site") or call.get("user_frame") or call.get("frame") or "-"
        match = _NUMBER.search(site)
        if match:
            folded.setdefault(site[:match.start()] + ".{}." + site[match.end():], []).append(int(match.group(1)))
        else:
            folded.setdefault(site, [])
    parts = [site.replace("{}", "{" + ranges(numbers) + "}") if numbers else site
             for site, numbers in folded.items()]
    return ", ".join(parts[:limit]) + (f" +{len(parts) - limit}" if len(parts) > limit else "")


def steps_text(calls: list[dict], lang: str) -> str:
    steps = [c["generate_step"] for c in calls if c.get("generate_step") is not None]
    # forwards outside generate() (a plain forward may share the prefill's mask: named apart)
    forwards = [c["forward"] for c in calls if c.get("forward") is not None and c.get("generate_step") is None]
    if steps:
        kind = "prefill" if set(steps) == {0} else "decode" if 0 not in steps else "both"
        text = t(f"capture.steps.{kind}", lang, steps=ranges(steps))
        if forwards:
            text = t("capture.steps.and", lang, first=text,
                     then=t("capture.steps.forwards", lang, forwards=ranges(forwards)))
        return text
    if forwards:
        return t("capture.steps.forwards", lang, forwards=ranges(forwards))
    return t("capture.steps.outside", lang)
