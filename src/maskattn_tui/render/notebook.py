"""What a Jupyter notebook shows for the capture summary, a doctor
diagnosis and the mask figure (`_repr_html_`): the line blocks `print`
draws, recorded by Rich and exported as HTML with inline styles. Every
colour has its word beside it (the legend, "blocked: future", the level
of each finding); the plain text stays each object's `__repr__`.

Called from below (capture.session, doctor.diagnosis, maskmode.saved_doc):
the drawing lives here, above what it draws, so those three lazy imports
are the layers contract's declared exceptions (pyproject.toml)."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.segment import Segment

from maskattn_tui.i18n import t
from maskattn_tui.render.blocks import AtWidth, TextBlock, wrap_text
from maskattn_tui.render.palette import Palette, default_palette
from maskattn_tui.render.printout import BLANK, rule

#: The page's width in cells (a notebook's output column holds about 100).
WIDTH = 100
#: A finding's level -> the palette meaning its word is drawn in.
LEVEL_STYLE = {"error": "warning", "warning": "header", "info": "dim", None: "dim"}
_PAGE = ('<pre class="maskattn-tui" style="font-family: \'Fira Code\', \'DejaVu Sans Mono\', Menlo, monospace; '
         'line-height: 1.3; font-size: 13px; white-space: pre; overflow-x: auto">{code}</pre>')


def html(parts: list[RenderableType], width: int = WIDTH) -> str:
    """The renderables as an HTML fragment (Rich's export, styles inline)."""
    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=True, color_system="truecolor",
                      highlight=False, emoji=False, soft_wrap=False, legacy_windows=False)
    for part in parts:
        console.print(part, crop=False)
    return console.export_html(inline_styles=True, code_format=_PAGE)


def _item(word: str, style_name: str, text: str, palette: Palette) -> AtWidth:
    """`[word] text`: the word in its colour, the text wrapped under itself."""
    head = f"[{word}] "
    indent = cell_len(head)

    def build(width: int) -> TextBlock:
        lines = wrap_text(text, max(1, width - indent))
        return TextBlock([[Segment(head, palette.style(style_name)), *lines[0]],
                          *([Segment(" " * indent), *line] for line in lines[1:])])

    return AtWidth(build)


def _level_word(level: str | None, lang: str) -> str:
    return t(f"doctor.level.{level}", lang) if level else t("eco.notebook.ok", lang)


def _title(text: str, palette: Palette) -> AtWidth:
    return rule([Segment(palette.tr(text), palette.style("title"))], palette)


def summary_html(rows: list[tuple[str | None, str]], folder: str, lang: str) -> str:
    """Capture.summary(): one line per distinct mask, its worst level's word first."""
    palette = default_palette()
    parts: list[RenderableType] = [_title(t("eco.notebook.capture", lang, folder=folder, count=len(rows)), palette)]
    parts += [_item(_level_word(level, lang), LEVEL_STYLE[level] if level else "dim", line, palette)
              for level, line in rows]
    return html(parts)


def diagnosis_html(diag, lang: str) -> str:
    """A Diagnosis: what the doctor read (representation, reading, rule) and
    its findings, errors first, each with its level's word."""
    from types import SimpleNamespace

    from maskattn_tui.doctor.report import finding_message, ordered_findings, summary_lines

    palette = default_palette()
    unnamed = SimpleNamespace(path="", format="", dtype="", shape=diag.shape, batch=None, head=None,
                              distinct_slices=None, key=None)  # an array, not a file: no head line
    read = summary_lines(diag, unnamed, lang)[1:]
    parts: list[RenderableType] = [_title(t("eco.notebook.diagnosis", lang), palette)]
    parts += [AtWidth(lambda width, line=line: TextBlock(wrap_text(line, width))) for line in read]
    parts.append(BLANK)
    findings = ordered_findings(diag)
    parts += [_item(_level_word(f.level, lang), LEVEL_STYLE[f.level], finding_message(f, diag, lang), palette)
              for f in findings]
    if not findings:
        parts.append(_item(_level_word(None, lang), "dim", t("doctor.report.healthy", lang), palette))
    return html(parts)


def figure_html(doc, lang: str) -> str:
    """A mask-mode document: mask mode's screen as `print --mask` draws it (the mask
    beside its reading, the first row's bars, the findings and the legend)."""
    from maskattn_tui.render.mask_page import page

    return html(page(doc, lang, default_palette(), WIDTH))



#: A probe invariance's status -> the palette meaning its line is drawn in.
STATUS_STYLE = {"broken": "warning", "held": "title", "skipped": "dim"}


def probe_html(head: str, rows: list[tuple[str | None, str]], closing: str) -> str:
    """A probe report: its head line, each invariance's line in its status's
    colour (the status is a word on the line itself: held / BROKEN /
    skipped), the detail lines under it as they are printed, the count."""
    palette = default_palette()
    parts: list[RenderableType] = [_title(head, palette)]
    for status, line in rows:
        style = palette.style(STATUS_STYLE[status]) if status else None
        parts.append(AtWidth(lambda width, line=line, style=style: _indented(line, width, style)))
    parts += [BLANK, AtWidth(lambda width: TextBlock(wrap_text(closing, width)))]
    return html(parts)


def _indented(line: str, width: int, style) -> TextBlock:
    """A printed line wrapped under its own indent (a detail line's
    continuation stays beside its invariance, not at the margin)."""
    text = line.lstrip(" ")
    indent = len(line) - len(text)
    return TextBlock([[Segment(" " * indent), *row] for row in wrap_text(text, max(1, width - indent), style)])
