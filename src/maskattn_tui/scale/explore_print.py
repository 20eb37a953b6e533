"""`maskattn-tui print|json --new 131072 --window 4096 [--row R]`: a big
explore configuration shown by blocks (scale.explore_big) - the block
overview, FlexAttention's counts and the selected row's numbers."""

from __future__ import annotations

import math
import sys

import numpy as np

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.scale.blocks import EMPTY, FULL, cdiv
from maskattn_tui.scale.explore_big import BigConfig, big_config, overview, row_numbers

SCHEMA = "maskattn-explore-scale/1"
#: Lines of the overview picture at most.
PICTURE_ROWS = 32
#: Rows of a drill-down into cells (--key).
CELL_ROWS = 16


def rules_text(config: BigConfig, lang: str) -> str:
    o, rule = config.options, config.rule
    parts = [t("doctor.rule.causal" if o.causal else "doctor.rule.bidirectional", lang)]
    if o.window is not None and not o.causal:  # two-sided: |q - k| <= W, or (W, R)
        parts.append(t("doctor.rule.two-sided-window", lang, left=o.window, right=rule.right_width))
    for name, value in (("window", o.window if o.causal else None), ("chunk", o.chunk), ("prefix", o.prefix)):
        if value is not None:
            parts.append(t(f"doctor.rule.{name}", lang, w=value, c=value, p=value))
    for a, b in o.sink_runs:
        parts.append(t("sinks.rule", lang, first=a, last=b - 1))
    if o.documents is not None:
        parts.append(t("doctor.rule.documents", lang, lengths=",".join(map(str, o.documents))))
    if o.tree is not None:
        parts.append(t("doctor.rule.tree", lang, parents=",".join(map(str, o.tree[:20]))))
    if o.pad:
        first, last = (0, o.pad - 1) if o.pad_side == "left" else (rule.keys - o.pad, rule.keys - 1)
        parts.append(t("doctor.rule.pad", lang, first=first, last=last, side=t(f"doctor.side.{o.pad_side}", lang)))
    return t("doctor.report.join", lang).join(parts)


def overview_lines(kind: np.ndarray, width: int, ascii: bool) -> tuple[list[str], int, int]:
    """The overview picture: each two-character cell a section of blocks,
    full glyph when every block in it is full, blank when none has a
    visible cell, light glyph otherwise (meaning by glyph, not colour)."""
    n_rows, n_cols = kind.shape
    step_r = max(1, cdiv(n_rows, PICTURE_ROWS))
    step_c = max(1, cdiv(n_cols, max(1, (width - 2) // 2)))
    step = max(step_r, step_c)  # square sections
    full_g, some_g = ("#", "+") if ascii else ("█", "░")
    r_at, c_at = np.arange(0, n_rows, step), np.arange(0, n_cols, step)
    full = np.add.reduceat(np.add.reduceat((kind == FULL).astype(np.int64), r_at, axis=0), c_at, axis=1)
    empty = np.add.reduceat(np.add.reduceat((kind == EMPTY).astype(np.int64), r_at, axis=0), c_at, axis=1)
    size = np.minimum(step, n_rows - r_at)[:, None] * np.minimum(step, n_cols - c_at)[None, :]
    lines = ["  " + "".join((full_g if f == s else " " if e == s else some_g) * 2 for f, e, s in zip(fr, er, sr))
             for fr, er, sr in zip(full, empty, size)]
    return lines, step, len(lines)


def runs_text(runs, limit: int = 6) -> str:
    shown = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in runs[:limit])
    return shown + (f", … (+{len(runs) - limit})" if len(runs) > limit else "")


def cells_window(config: BigConfig, runs, row: int, key: int, width: int) -> tuple[int, int, int, int]:
    """Rows row.. and keys key.. of a drill-down, cut at the table's edge."""
    if not 0 <= key < config.keys:
        raise MaskattnError("scale_key", value=key, hi=config.keys - 1)
    label = len(f"q{config.options.past + config.rows - 1}") + 1
    return row, min(config.rows, row + CELL_ROWS), key, min(config.keys, key + max(8, width - label - 2))


def cells_lines(config: BigConfig, runs, window, lang: str, ascii: bool) -> list[str]:
    r0, r1, k0, k1 = window
    shown, hidden = ("#", ".") if ascii else ("█", "·")
    cells = runs.band(r0, r1, k0, k1)
    label = len(f"q{config.options.past + r1 - 1}") + 1
    lines = [t("scale.x.cells", lang, r0=r0, r1=r1 - 1, k0=k0, k1=k1 - 1, shown=shown, hidden=hidden)]
    for i, line in enumerate(cells):
        lines.append(f"  {'q' + str(config.options.past + r0 + i):<{label}}" + "".join(shown if c else hidden
                                                                                     for c in line))
    return lines


def text(config: BigConfig, row: int, lang: str, width: int, ascii: bool, key: int | None = None,
         labels: tuple[str, ...] | None = None) -> str:
    runs, blocks = overview(config)
    c = blocks.counts()
    o = config.options
    lines = [t("scale.x.title", lang, keys=config.keys, past=o.past, new=o.new, rules=rules_text(config, lang))]
    picture, step, _ = overview_lines(blocks.kind, width, ascii)
    lines.append(t("scale.x.blocks", lang, block=blocks.q_block, n_q=blocks.kind.shape[0], n_k=blocks.kind.shape[1],
                   step=step, partial=c["partial"], full=c["full"], empty=c["empty"],
                   sparsity=f"{blocks.sparsity():.2f}", visible=runs.visible(), cells=config.rows * config.keys))
    lines.append(t("scale.x.legend", lang, full="#" if ascii else "█", some="+" if ascii else "░"))
    lines += picture
    n = row_numbers(config, runs, row)
    lines.append(t("scale.x.row", lang, row=n.row, position=n.position, count=n.count, runs=len(n.runs),
                   spans=runs_text(n.runs) or "-"))
    if n.query_is_pad:
        lines.append(t("scale.x.pad_query", lang))
    if n.count == 0:
        lines.append(t("scale.x.empty_refused" if n.empty_policy is None else "scale.x.empty_policy", lang,
                       policy=n.empty_policy or "", output="-" if n.output is None else f"{n.output:g}"))
    else:
        top = t("doctor.report.join", lang).join(t("scale.x.weight", lang, k=k, weight=f"{w:.4g}", score=f"{s:.4g}", value=f"{v:g}")
                        for k, w, s, v in n.top)
        lines.append(t("scale.x.top", lang, count=len(n.top), weights=top))
        lines.append(t("scale.x.output", lang, total=f"{n.weight_sum:.6g}", output=f"{n.output:.6g}"))
    if labels is not None:  # --labels: one per position (checked against config.keys)
        keys = t("doctor.report.join", lang).join(f"k{k} “{labels[k]}”" for k, *_ in n.top) or "-"
        lines.append(t("mask_print.labels_row", lang, position=n.position, label=labels[n.position], keys=keys))
    if key is not None:
        lines += cells_lines(config, runs, cells_window(config, runs, row, key, width), lang, ascii)
    return "\n".join(lines)


def document(config: BigConfig, row: int, key: int | None = None, labels: tuple[str, ...] | None = None) -> dict:
    from maskattn_tui.scale.report import blocks_json

    runs, blocks = overview(config)
    n = row_numbers(config, runs, row)
    extra = {}
    if key is not None:  # a drill-down: the cells of rows row.., keys key.. (0/1 per cell)
        r0, r1, k0, k1 = cells_window(config, runs, row, key, 64)
        extra["cells"] = {"rows": [r0, r1 - 1], "keys": [k0, k1 - 1],
                          "visible": ["".join("1" if c else "0" for c in line) for line in runs.band(r0, r1, k0, k1)]}
    return {**extra,
        "schema": SCHEMA,
        "config": {**config.options.as_dict(), "temperature": config.temperature,
                   "empty_row_policy": config.empty_row_policy, "seed": config.seed},
        "queries": config.rows, "keys": config.keys, "visible": runs.visible(),
        "blocks": blocks_json(blocks),
        "row": {"row": n.row, "position": n.position, "query_is_pad": n.query_is_pad, "count": n.count,
                "runs": [list(r) for r in n.runs],
                "top": [{"key": k, "weight": w, "score": s, "value": v,
                         **({} if labels is None else {"label": labels[k]})} for k, w, s, v in n.top],
                **({} if labels is None else {"label": labels[n.position]}),
                # the nan policy's NaN is null, as in the small explorer's rows (strict JSON has no NaN)
                "weight_sum": n.weight_sum, "output": None if n.output is not None and math.isnan(n.output)
                else n.output, "empty_row_policy": n.empty_policy,
                "refused": n.count == 0 and n.empty_policy is None},
    }


def run(config: BigConfig, lang: str, as_json: bool, row: int | None, key: int | None, width: int,
        ascii: bool, labels: tuple[str, ...] | None = None) -> int:
    row = config.rows - 1 if row is None else row
    if as_json:
        from maskattn_tui.doctor.report import dumps

        sys.stdout.write(dumps(document(config, row, key, labels)) + "\n")
    else:
        sys.stdout.write(text(config, row, lang, width, ascii, key, labels) + "\n")
    return 0
