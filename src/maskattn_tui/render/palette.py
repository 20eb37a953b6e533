"""Meanings -> styles and glyphs. The renderables never name colours
themselves: `print` uses DEFAULT_STYLES, the TUI passes styles read from its
component classes, and every meaning also has a glyph or word (GLYPHS)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.style import Style

from maskattn_tui.i18n import catalog, pick, t

#: Multi-character ASCII spellings of the symbols our texts use, so that the
#: ASCII mode keeps every meaning (applied before Rich measures the text).
ASCII_SPELLING = {
    # "·" is a separator between spaces and a product between operands
    # ("p·v", "0.33·10"): " | " and "*" keep the two apart ("0.33.10" would not).
    " · ": " | ", "·": "*",
    "−∞": "-inf", "∞": "inf", "−": "-", "≤": "<=", "≥": ">=", "≈": "~", "≠": "!=", "×": "x",
    "↓": "v", "↑": "^", "→": "->", "←": "<-", "Σ": "sum", "√d": "sqrt(d)", "√": "sqrt", "²": "^2",
    "“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "…": "...", "✓": "+",
    "●": "*", "▶": ">", "…": "...",
    # The language key's label ("L 中文") needs CJK glyphs: spell it out.
    "中文": "Chinese",
}

#: meaning -> default Rich style (used outside Textual, e.g. `print`).
DEFAULT_STYLES: dict[str, str] = {
    "allowed": "bold black on green3",
    "future": "bold white on red3",
    "pad": "bold black on yellow3",
    "future+pad": "bold white on magenta3",
    "slot": "bold white on grey42",
    "window": "bold black on dark_orange",
    "chunk": "bold black on orchid",
    "document": "bold black on sky_blue2",
    "tree": "bold black on light_slate_blue",
    "focus": "bold reverse",
    "selected": "bold underline",
    "header": "bold",
    "dim": "dim",
    "cached": "cyan",
    "new": "bold",
    "bar": "green3",
    "bar.blocked": "red3",
    "bar.empty": "grey50",
    "number": "bold",
    "diff": "bold white on blue",
    "warning": "bold red",
    "title": "bold",
    # mask mode (the doctor in the app): cells hidden for another reason, blocks
    "hidden": "bold white on grey35",
    "block.full": "green3 on dark_green",
    "block.partial": "dark_orange on grey23",
    "block.empty": "grey70 on grey23",
}

#: Glyphs of mask mode's reasons (unicode, ASCII): cells hidden neither by
#: causality nor PAD, and FlexAttention-style blocks.
#: A block's glyph fills a compact cell of two (one left for "!" if marked).
MASK_GLYPHS = {"hidden": ("×", "x"), "block.full": ("██", "##"), "block.partial": ("▒▒", "++"),
               "block.empty": ("·", ".")}


@dataclass(frozen=True)
class Glyphs:
    """Per-cell marks: meaning is never carried by colour alone."""

    allowed: str
    future: str
    pad: str
    future_pad: str
    bar_full: str
    bar_partial: tuple[str, ...]  # 1/8 .. 7/8 blocks, or ASCII fallbacks
    bar_empty: str
    arrow: str
    ellipsis: str
    box: str  # name of a rich.box style
    neg_inf: str
    le: str
    #: one letter per blocking rule (engine.rules.RULE_ORDER); a cell blocked
    #: by several shows their letters in that order ("FP", "FC")
    reasons: tuple[tuple[str, str], ...] = (
        ("future", "F"), ("pad", "P"), ("slot", "U"), ("window", "W"), ("chunk", "C"), ("document", "D"), ("tree", "T"),
    )


UNICODE = Glyphs(
    allowed="✓",
    future="F",
    pad="P",
    future_pad="FP",
    bar_full="█",
    bar_partial=("▏", "▎", "▍", "▌", "▋", "▊", "▉"),
    bar_empty="·",
    arrow="▶",
    ellipsis="…",
    box="ROUNDED",
    neg_inf="−∞",
    le="≤",
)

ASCII = Glyphs(
    allowed="+",
    future="F",
    pad="P",
    future_pad="FP",
    bar_full="#",
    bar_partial=("", "", "", "", "", "", ""),
    bar_empty=".",
    arrow=">",
    ellipsis="...",
    box="ASCII",
    neg_inf="-inf",
    le="<=",
)


@dataclass(frozen=True)
class Palette:
    styles: dict[str, Style] = field(default_factory=dict)
    glyphs: Glyphs = UNICODE
    color: bool = True

    def style(self, meaning: str) -> Style:
        if "+" in meaning and meaning not in self.styles and meaning not in DEFAULT_STYLES:
            # A cell blocked by several rules takes the colour of the last
            # (the pattern's own); its letters name all of them.
            meaning = meaning.rsplit("+", 1)[1]
        if not self.color:
            # Keep emphasis (bold/reverse/underline) but drop colour.
            base = self.styles.get(meaning) or Style.parse(DEFAULT_STYLES.get(meaning, ""))
            return Style(bold=base.bold, reverse=base.reverse, underline=base.underline, dim=base.dim)
        return self.styles.get(meaning) or Style.parse(DEFAULT_STYLES.get(meaning, ""))

    @property
    def ascii(self) -> bool:
        return self.glyphs.box == "ASCII"

    def tr(self, text: str) -> str:
        """The text as this palette can show it (ASCII spellings if needed)."""
        if not self.ascii:
            return text
        for symbol, spelling in ASCII_SPELLING.items():
            text = text.replace(symbol, spelling)
        return text

    def t(self, key: str, lang: str, **params: object) -> str:
        return self.tr(t(key, lang, **params))

    def pick(self, texts: dict, lang: str) -> str:
        return self.tr(pick(texts, lang))

    def reason_text(self, cell_value: str, lang: str, how: str = "blocked") -> str:
        """"blocked: future+PAD" (how="blocked") or "would be blocked: ..."
        (how="leak"), naming every rule in the cell."""
        key = f"render.{how}_reason.{cell_value}"
        if key in catalog():
            return self.t(key, lang)
        return self.t(f"render.{how}_reason.many", lang, names=self.reason_names(cell_value, lang))

    def reason_names(self, cell_value: str, lang: str) -> str:
        """"window+chunk" -> "window+chunk" in `lang`: each rule's name."""
        return self.t("render.reason_join", lang).join(
            self.t(f"render.reason.{name}", lang) for name in cell_value.split("+"))

    def cell_glyph(self, cell_value: str) -> str:
        """✓ (or +) for an allowed cell, the mask view's own glyphs (hidden,
        blocks), else one letter per blocking rule."""
        if cell_value in MASK_GLYPHS:
            return MASK_GLYPHS[cell_value][1 if self.ascii else 0]
        if cell_value == "allowed":
            return self.glyphs.allowed
        letters = dict(self.glyphs.reasons)
        return "".join(letters[name] for name in cell_value.split("+"))


def default_palette(ascii: bool = False, color: bool = True) -> Palette:
    return Palette(glyphs=ASCII if ascii else UNICODE, color=color)
