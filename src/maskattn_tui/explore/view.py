"""From an ExploreConfig to what the screens show.

* `evaluate` - the attention numbers for a configuration, optionally with
  another visibility (an experiment's table) or another V (a leak probe).
  It applies `score_override`, which a StepSpec cannot carry.
* `to_spec` - the configuration as a foundation `StepSpec` (kind "explore",
  step 1) with its title, condition and caption in both languages.
* `explore_view` - `build_view(to_spec(config), 1)`, with the result taken
  from `evaluate` when scores were set directly. Use this, not build_view,
  so that score overrides are shown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from maskattn_tui.engine.attention import AttentionResult, attend_scores
from maskattn_tui.i18n import LANGS, t
from maskattn_tui.engine.matrices import Matrix, scaled_scores
from maskattn_tui.lesson.f12 import StepSpec
from maskattn_tui.lesson.stepview import StepView, build_view

from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.fields import shown_spans
from maskattn_tui.explore.patterns import PATTERN_FIELDS

Allowed = Sequence[Sequence[bool]]


def scores_of(config: ExploreConfig) -> tuple[Matrix, float]:
    """Scaled scores q.k / sqrt(d) with `score_override` applied, and the scale."""
    q, k, _ = config.inputs()
    scores, scale = scaled_scores(q, k)
    if config.score_override:
        rows = [list(r) for r in scores]
        for row, key, value in config.score_override:
            rows[row][key] = value
        scores = tuple(tuple(r) for r in rows)
    return scores, scale


def evaluate(
    config: ExploreConfig,
    allowed: Allowed | None = None,
    v: Matrix | None = None,
) -> AttentionResult:
    """weights = masked softmax(scores / T) over `allowed` (default: the
    configuration's own table; True = may read), outputs = weights x V
    (default: the configuration's V). A row with no allowed key follows the
    configured policy; under "error" its weights and outputs are None."""
    q, k, v0 = config.inputs()
    scores, scale = scores_of(config)
    allowed = config.table().allowed if allowed is None else allowed
    return attend_scores(
        q, k, v0 if v is None else v, scores, scale, allowed,
        config.temperature, config.empty_row_policy,
    )


# --- words ------------------------------------------------------------------


def span(positions: Sequence[int], lang: str) -> str:
    """3 -> "3"; 3, 4, 5 -> "3–5"; non-contiguous -> "0, 2" (zh: "0、2")."""
    if not positions:
        return t("explore.none", lang)
    ps = sorted(positions)
    if ps == list(range(ps[0], ps[-1] + 1)):
        return str(ps[0]) if len(ps) == 1 else f"{ps[0]}–{ps[-1]}"
    return t("explore.list_sep", lang).join(str(p) for p in ps)


def _one_many(key: str, items: Sequence) -> str:
    return f"{key}.one" if len(items) == 1 else f"{key}.many"


def _pad_words(config: ExploreConfig, lang: str) -> str:
    if config.pad_keys is not None:  # PAD anywhere: name the positions
        return t(_one_many("explore.pad_keys_words", config.pad_positions), lang, count=len(config.pad_positions),
                 keys=span(config.pad_positions, lang))
    if config.pad == 0:
        return t("explore.none", lang)
    return t(
        _one_many("explore.pad_words", config.pad_positions),
        lang,
        count=config.pad,
        side=t(f"explore.side.{config.pad_side}", lang),
        keys=span(config.pad_positions, lang),
    )


def _rule_words(config: ExploreConfig, lang: str) -> str:
    """"causal", or "causal · window W = 3" etc. with the patterns that are on."""
    words = [t("explore.rule.causal" if config.causal else "explore.rule.not_causal", lang)]
    for name in PATTERN_FIELDS:
        value = getattr(config, name)
        if name == "window" and value is not None and not config.causal:
            right = value if config.window_right is None else config.window_right
            words.append(t("explore.rule.window_two_sided", lang, left=value, right=right))
        elif value is not None:
            shown = (shown_spans(value) if name == "bidirectional"
                     else ",".join(map(str, value)) if isinstance(value, tuple) else value)
            words.append(t(f"explore.rule.{name}", lang, value=shown))
    if config.sinks is not None:
        words.append(t("explore.rule.sinks", lang, value=config.sinks))
    if config.cache_slots:
        words.append(t("explore.rule.cache_slots", lang, value=config.cache_slots))
    return t("explore.rule_sep", lang).join(words)


def _pattern_sentences(config: ExploreConfig, lang: str) -> list[str]:
    """One sentence per pattern that is on, with its numbers."""
    out = []
    if config.window is not None and not config.causal:
        right = config.window if config.window_right is None else config.window_right
        out.append(t("explore.caption.window_two_sided", lang, w=config.window, right=right))
    elif config.window is not None:
        out.append(t("explore.caption.window", lang, w=config.window, distance=config.window - 1))
    if config.chunk is not None:
        origin = config.origin
        out.append(t("explore.caption.chunk", lang, c=config.chunk, origin=origin))
    if config.prefix is not None:
        out.append(t("explore.caption.prefix", lang, p=config.prefix))
    if config.sinks is not None:
        (a, b), = config.sink_runs or ((config.origin, config.origin),)
        out.append(t("explore.caption.sinks", lang, k=config.sinks, first=a, last=b - 1))
    if config.documents is not None:
        out.append(t("explore.caption.documents", lang, lengths=",".join(map(str, config.documents))))
    if config.tree is not None:
        out.append(t("explore.caption.tree", lang, past=config.past))
    if config.bidirectional is not None:
        out.append(t("explore.caption.bidirectional", lang, blocks=shown_spans(config.bidirectional)))
    if config.cache_slots:
        out.append(t("explore.caption.cache_slots", lang, slots=config.cache_slots, first=config.length,
                     size=config.length + config.cache_slots))
    return out


def title(config: ExploreConfig, lang: str) -> str:
    return t("explore.title", lang, past=config.past, new=config.new)


def condition(config: ExploreConfig, lang: str) -> str:
    return t(
        "explore.condition",
        lang,
        past=config.past,
        new=config.new,
        queries=span(config.query_positions, lang),
        keys=span(config.key_positions, lang),
        pad=_pad_words(config, lang),
        rule=_rule_words(config, lang),
        temperature=f"{config.temperature:g}",
        # the option's value, named in the reader's language too
        policy=t(f"explore.policy_name.{config.empty_row_policy}", lang),
    )


def caption(config: ExploreConfig, lang: str, empty_rows: Sequence[int] | None = None) -> str:
    """What this configuration shows, sentence by sentence."""
    if empty_rows is None:
        empty_rows = config.table().empty_rows
    parts = [t("explore.caption.base", lang)]
    if config.past:
        parts.append(
            t(
                "explore.caption.cache" if config.causal else "explore.caption.cache_plain",
                lang,
                past=config.past,
                queries=span(config.query_positions, lang),
            )
        )
    if not config.causal:
        parts.append(t("explore.caption.not_causal", lang))
    parts += _pattern_sentences(config, lang)
    if config.pad or config.pad_keys:
        parts.append(t("explore.caption.pad", lang, pad=_pad_words(config, lang)))
    pad_rows = [r for r, is_pad in enumerate(config.query_is_pad) if is_pad]
    if pad_rows:
        parts.append(t(_one_many("explore.caption.pad_queries", pad_rows), lang, rows=span(pad_rows, lang)))
    if empty_rows:
        parts.append(
            t(
                _one_many("explore.caption.empty", empty_rows),
                lang,
                rows=span(empty_rows, lang),
                policy=config.empty_row_policy,
                what=t(f"explore.policy.{config.empty_row_policy}", lang),
            )
        )
    if config.v_override:
        parts.append(
            t("explore.caption.v_override", lang, keys=span([k for k, _ in config.v_override], lang))
        )
    if config.score_override:
        parts.append(t("explore.caption.score_override", lang, count=len(config.score_override)))
    text = parts[0]
    for part in parts[1:]:
        text = t("explore.sentence_join", lang, a=text, b=part)
    return text


def to_spec(config: ExploreConfig) -> StepSpec:
    """The configuration as one foundation step (kind "explore", step 1).

    Carries Q, K and V *with* `v_override` applied. `score_override` is not
    representable in a StepSpec: use `explore_view` / `evaluate` for numbers."""
    q, k, v = config.inputs()
    empty = config.table().empty_rows
    visible_rows = [r for r in range(config.new) if r not in empty]
    return StepSpec(
        step=1,
        kind="explore",
        q=q,
        k=k,
        v=v,
        query_positions=config.query_positions,
        key_positions=config.key_positions,
        key_is_pad=config.key_is_pad,
        causal=config.causal,
        temperature=config.temperature,
        empty_row_policy=config.empty_row_policy,
        past=config.past,
        focus_rows=(visible_rows[0] if visible_rows else 0,),
        title={lang: title(config, lang) for lang in LANGS},
        condition={lang: condition(config, lang) for lang in LANGS},
        caption={lang: caption(config, lang, empty) for lang in LANGS},
    )


def explore_view(config: ExploreConfig) -> StepView:
    """The foundation StepView of this configuration (one step of one)."""
    view = build_view(to_spec(config), 1)
    if config.has_pattern:
        # A StepSpec carries causal and PAD only: the table with the patterns
        # (and its position ids) comes from the configuration.
        view = replace(view, table=config.table(), result=evaluate(config))
    elif config.score_override:
        view = replace(view, result=evaluate(config))
    return view
