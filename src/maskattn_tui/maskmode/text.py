"""What mask mode's explanation pane and bars say, as plain text sections
in either language (strings: data/strings/doctor_tui.json and doctor.json).
No Textual, no Rich: the screen turns them into lines.

    sections(tables, info, state, lang, glyph)  -> [Section(title, paragraphs)]

A paragraph is (meaning, text): the meaning ("warning", "diff", None) is
the style the pane gives it; the text always says it in words as well."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from maskattn_tui.i18n import t
from maskattn_tui.maskmode.document import ViewState
from maskattn_tui.maskmode.row_weights import RowWeights
from maskattn_tui.maskmode.tables import BLOCK_REASONS, REASONS, MaskTables, Tables

Paragraph = tuple[str | None, str]


@dataclass(frozen=True)
class Section:
    title: str
    paragraphs: tuple[Paragraph, ...]


def user_title(tables: MaskTables, lang: str) -> str:
    """"your mask", with how it was read ("True / 1 = blocked")."""
    diag = tables.diagnosis
    polarity = t(f"doctor.polarity.{diag.polarity}.{diag.representation.reading}", lang)
    return t("doctor_tui.table.user", lang, polarity=polarity)


def rule_title(tables: MaskTables, lang: str) -> str:
    from maskattn_tui.doctor.report import rule_text  # the doctor's text: a long rule's screen has none

    key = "doctor_tui.table.fix" if tables.realigned else "doctor_tui.table.rule"
    return t(key, lang, rule=rule_text(tables.diagnosis, lang), past=tables.offset)


def view_line(state: ViewState, lang: str, offset: int) -> str:
    """What the grid shows now: cells, blocks of a size, or one block's cells."""
    rows, cols = state.shape
    if state.window is not None:
        r0, r1, c0, c1 = state.window
        return t("doctor_tui.view.window", lang, q0=r0 + offset, q1=r1 - 1 + offset, k0=c0, k1=c1 - 1)
    if state.size == 1:
        return t("doctor_tui.view.cells", lang, rows=rows, keys=cols)
    auto = t("doctor_tui.view.auto", lang) if state.auto else ""
    return t("doctor_tui.view.blocks", lang, size=state.size, auto=auto, rows=rows, cols=cols)


def cell_here(tables: Tables, state: ViewState, lang: str) -> list[Paragraph]:
    r, k = state.place
    user = int(tables.reasons("user", r, r + 1, k, k + 1)[0, 0])
    rule = int(tables.reasons("rule", r, r + 1, k, k + 1)[0, 0])
    out: list[Paragraph] = [
        (None, t("doctor_tui.cell.head", lang, position=r + tables.offset, row=r, k=k)),
        (None, t("doctor_tui.cell.user", lang, state=t(f"doctor_tui.state.{REASONS[user]}", lang))),
        (None, t("doctor_tui.cell.rule", lang, state=t(f"doctor_tui.state.{REASONS[rule]}", lang))),
    ]
    if (user == 0) == (rule == 0):
        out.append((None, t("doctor_tui.cell.same", lang)))
    elif user == 0:
        leak = tables.causal and k > r + tables.offset
        out.append(("diff", t("doctor_tui.cell.leak" if leak else "doctor_tui.cell.shown", lang)))
    else:
        out.append(("diff", t("doctor_tui.cell.missing", lang)))
    return out


def block_here(tables: Tables, state: ViewState, lang: str, printed: bool = False) -> list[Paragraph]:
    r0, r1, c0, c1 = state.span
    counts = tables.blocks(state.size)
    i, j = state.row, state.col
    out: list[Paragraph] = [(None, t("doctor_tui.block.head", lang, q0=r0 + tables.offset, q1=r1 - 1 + tables.offset,
                                     k0=c0, k1=c1 - 1, area=f"{(r1 - r0) * (c1 - c0):,}"))]
    for which in ("user", "rule"):
        kind = BLOCK_REASONS[int(counts.category(which)[i, j])]
        count = int((counts.user if which == "user" else counts.rule)[i, j])
        out.append((None, t(f"doctor_tui.block.{which}", lang, count=f"{count:,}",
                            kind=t(f"doctor_tui.kind.{kind}", lang))))
    differ = int(counts.differ[i, j])
    words = "mask_print.block" if printed else "doctor_tui.block"  # a log has no Enter: the option that shows them
    out.append(("diff", t(f"{words}.differ", lang, count=f"{differ:,}", q0=r0, k0=c0)) if differ
               else (None, t(f"{words}.same", lang, q0=r0, k0=c0)))
    return out


def legend(state: ViewState, lang: str, offset: int, glyph: Callable[[str], str]) -> list[Paragraph]:
    if state.cells:
        text = t("doctor_tui.legend.cells", lang, allowed=glyph("allowed"), future=glyph("future"),
                 pad=glyph("pad"), hidden=glyph("hidden"))
    else:
        text = t("doctor_tui.legend.blocks", lang, full=glyph("block.full"), partial=glyph("block.partial"),
                 empty=glyph("block.empty"))
    return [(None, text), (None, t("doctor_tui.legend.rows", lang, offset=offset))]


def sections(tables: MaskTables, info, state: ViewState, lang: str, glyph: Callable[[str], str],
             printed: bool = False) -> list[Section]:
    """The explanation pane: the selection, the findings (errors first),
    what was read, and the legend (`printed`: for print --mask, no keys)."""
    from maskattn_tui.doctor.report import finding_message, ordered_findings, summary_lines

    diag = tables.diagnosis
    here = cell_here(tables, state, lang) if state.cells else block_here(tables, state, lang, printed)
    findings = ordered_findings(diag)
    listed: list[Paragraph] = [
        ("warning" if f.level == "error" else None,
         f"[{t(f'doctor.level.{f.level}', lang)}] {finding_message(f, diag, lang)}") for f in findings]
    if not listed:
        listed = [(None, t("doctor_tui.healthy", lang))]
    read = [(None, line) for line in summary_lines(diag, info, lang)] + [(None, view_line(state, lang, tables.offset))]
    return [
        Section(t("doctor_tui.title.here", lang), tuple(here)),
        Section(t("doctor_tui.title.findings", lang, count=len(findings)), tuple(listed)),
        Section(t("doctor_tui.title.read", lang), tuple(read)),
        Section(t("doctor_tui.title.legend", lang), tuple(legend(state, lang, tables.offset, glyph))),
    ]


def bars_caption(weights: RowWeights, keys: list[int], lang: str, largest: bool = False) -> list[str]:
    """The lines above the bars of a row: how many keys, whose scores, the
    largest weight and how much of the weight the shown `keys` hold (a run
    of keys, or with `largest` the row's largest weights)."""
    if weights.empty:
        return [t("doctor_tui.bars.empty", lang, position=weights.position)]
    source = t("doctor_tui.bars.real" if weights.real else
               "doctor_tui.bars.given" if weights.given else "doctor_tui.bars.generated", lang)
    top = weights.top
    shown = f"{float(weights.weights[keys].sum()) if keys else 0.0:.4f}"
    head = t("doctor_tui.bars.head", lang, position=weights.position, count=f"{weights.count:,}",
             keys=f"{len(weights.weights):,}", source=source)
    if largest:
        largest = "doctor_tui.bars.largest" + (".one" if len(keys) == 1 else "")
        return [head, t(largest, lang, n=len(keys), shown=shown)]
    weight = f"{weights.weights[top]:.4f}"
    seen = int(weights.visible[keys].sum()) if keys else 0
    # One key holding all that is shown: said once ("max k0 1.0000; k0-k6 hold 1.0000" read as two facts);
    # every visible key shown: "all the weight", not a sum that is always 1.
    key = ("doctor_tui.bars.top_all" if weight == shown and top in keys else
           "doctor_tui.bars.top_every" if seen == weights.count else "doctor_tui.bars.top_part")
    return [head, t(key, lang, k=top, weight=weight, k0=min(keys), k1=max(keys), shown=shown, n=f"{weights.count:,}",
                    seen=f"{seen:,}")]
