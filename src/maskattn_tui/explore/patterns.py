"""The mask patterns of an ExploreConfig: their checks, which combine, the
engine Pattern they make, and presets named after the models that use them.

Combinations are refused when the two rules disagree about what a row is
(a draft tree replaces time order; a window and chunks are two different
local schemes; a prefix-LM's bidirectional block has no agreed meaning inside
a window, chunk or packed document) or when a rule needs the causal rule to
mean anything (a prefix-LM, bidirectional blocks). A window inside packed
documents, PAD with a window or chunks, and bidirectional blocks inside a
sliding window (Gemma 3) combine. Attention sinks (the first K real keys
every query sees, StreamingLLM) go beside a causal window or chunks, and
with neither they change nothing, so they are refused alone. Without the causal rule a window is
two-sided, as Hugging Face's create_bidirectional_sliding_window_mask
(|q - k| <= W), and --window-right R makes it FlashAttention's (W, R).
Unused static-cache slots do not combine with documents (their lengths
cover past + new) nor with a tree."""

from __future__ import annotations

from maskattn_tui.errors import MaskattnError
from maskattn_tui.engine.rules import Pattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maskattn_tui.explore.config import ExploreConfig

#: Config fields that switch a rule beyond causal/PAD on (None = off).
PATTERN_FIELDS = ("window", "chunk", "prefix", "documents", "tree", "bidirectional")

#: (a, b): these two are refused together (b is the field blamed: the later one).
REFUSED_PAIRS = (
    ("window", "chunk"),
    ("window", "prefix"),
    ("chunk", "prefix"),
    ("chunk", "documents"),
    ("prefix", "documents"),
    ("window", "tree"),
    ("chunk", "tree"),
    ("prefix", "tree"),
    ("documents", "tree"),
    ("chunk", "bidirectional"),
    ("prefix", "bidirectional"),
    ("documents", "bidirectional"),
    ("tree", "bidirectional"),
)
#: Rules that need the causal rule on.
NEED_CAUSAL = ("prefix", "tree", "bidirectional")
#: Attention sinks stand beside a window or chunks (one of them is needed)
#: and are refused with these (sinks is the field blamed).
SINKS_BESIDE = ("window", "chunk")
SINKS_REFUSED = ("prefix", "documents", "tree", "bidirectional")
#: Rules a static cache's unused slots do not combine with.
NOT_WITH_SLOTS = ("documents", "tree")


def _whole_list(field: str, value: object) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or not value:
        raise MaskattnError(f"explore_{field}_list", field=field, value=value)
    for x in value:
        if isinstance(x, bool) or not isinstance(x, int):
            raise MaskattnError(f"explore_{field}_list", field=field, value=value)
    return tuple(value)


def _check_documents(value: object, length: int) -> tuple[int, ...]:
    lengths = _whole_list("documents", value)
    for i, n in enumerate(lengths):
        if n < 1:
            raise MaskattnError("explore_documents_length", field="documents", index=i + 1, value=n)
    if sum(lengths) != length:
        raise MaskattnError("explore_documents_sum", field="documents",
                            lengths=",".join(map(str, lengths)), total=sum(lengths), want=length)
    return lengths


def _check_tree(value: object, new: int) -> tuple[int, ...]:
    parents = _whole_list("tree", value)
    if len(parents) != new:
        raise MaskattnError("explore_tree_length", field="tree", got=len(parents), want=new)
    for i, parent in enumerate(parents):
        if not -1 <= parent < i:
            raise MaskattnError("explore_tree_parent", field="tree", node=i, value=parent, hi=i - 1)
    return parents


def _check_spans(field: str, value: object, length: int, merge: bool) -> tuple[tuple[int, int], ...]:
    """Inclusive runs (first, last) of positions < length, sorted; `merge`
    joins overlapping and touching runs (PAD keys), else they must not
    overlap (blocks, each its own island)."""
    if isinstance(value, str):
        from maskattn_tui.explore.fields import BY_NAME, TextError, parse_spans
        try:
            value = parse_spans(BY_NAME[field], value)
        except TextError:
            raise MaskattnError("explore_spans_text", field=field, value=value) from None
        if value is None:
            return None
    if not isinstance(value, (list, tuple)) or not value:
        raise MaskattnError("explore_spans_text", field=field, value=value)
    runs = []
    for run in value:
        pair = tuple(run) if isinstance(run, (list, tuple)) else (run, run)
        if len(pair) != 2 or any(isinstance(x, bool) or not isinstance(x, int) for x in pair):
            raise MaskattnError("explore_spans_text", field=field, value=value)
        a, b = pair
        if a > b:
            raise MaskattnError("explore_spans_order", field=field, first=a, last=b)
        if a < 0 or b >= length:
            raise MaskattnError("explore_spans_range", field=field, value=b if b >= length else a, hi=length - 1)
        runs.append((a, b))
    runs.sort()
    out: list[tuple[int, int]] = []
    for a, b in runs:
        if out and a <= out[-1][1] + (1 if merge else 0):
            if not merge:
                raise MaskattnError("explore_spans_overlap", field=field, one=_span(out[-1]), two=_span((a, b)))
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def _span(run: tuple[int, int]) -> str:
    return str(run[0]) if run[0] == run[1] else f"{run[0]}-{run[1]}"


def check_pattern(config: "ExploreConfig") -> None:
    """Check the list-valued pattern fields (normalised to tuples) and the
    combinations. Raises MaskattnError whose `field` names the field blamed."""
    set_ = object.__setattr__
    if config.documents is not None:
        set_(config, "documents", _check_documents(config.documents, config.past + config.new))
    if config.tree is not None:
        set_(config, "tree", _check_tree(config.tree, config.new))
    length = config.past + config.new
    for name, merge in (("bidirectional", False), ("pad_keys", True)):
        if getattr(config, name) is not None:
            set_(config, name, _check_spans(name, getattr(config, name), length, merge))
    on = [name for name in PATTERN_FIELDS if getattr(config, name) is not None]
    for a, b in REFUSED_PAIRS:
        if a in on and b in on:
            raise MaskattnError(f"explore_combo_{a}_{b}", field=b)
    if not config.causal:
        for name in NEED_CAUSAL:
            if name in on:
                raise MaskattnError("explore_needs_causal", field=name, rule=name)
    if config.sinks is not None:
        _check_sinks(config, on)
    if config.window_right is not None:
        if config.window is None:
            raise MaskattnError("explore_window_right_alone", field="window_right")
        if config.causal:
            raise MaskattnError("explore_window_right_causal", field="window_right")
    if config.cache_slots:
        for name in NOT_WITH_SLOTS:
            if name in on:
                raise MaskattnError("explore_slots_with", field="cache_slots", rule=name)


def _check_sinks(config: "ExploreConfig", on: list[str]) -> None:
    for name in SINKS_REFUSED:
        if name in on:
            raise MaskattnError(f"explore_combo_{name}_sinks", field="sinks")
    if not config.causal:
        raise MaskattnError("explore_needs_causal", field="sinks", rule="sinks")
    if not any(name in on for name in SINKS_BESIDE):
        raise MaskattnError("explore_sinks_alone", field="sinks")  # causal alone already shows every earlier key


def pattern_of(config: "ExploreConfig", causal: bool) -> Pattern:
    """The per-cell rule of the configuration (its spelling: MaskParams)."""
    return Pattern(
        causal=causal,
        window=config.window_keys,
        window_right=config.window_after,
        islands=config.block_runs,
        slots_from=config.filled if config.cache_slots else None,
        chunk=config.chunk,
        chunk_origin=config.origin,
        prefix=config.prefix,
        documents=config.documents,
        tree=config.tree,
        tree_start=config.past,
        sinks=config.sinks,
    )


#: Preset name -> the fields it sets (everything else pattern-related is reset;
#: seed, temperature and the empty-row policy are kept).
PRESETS: dict[str, dict[str, object]] = {
    "causal": dict(past=3, new=2),
    "sliding-window": dict(past=4, new=2, window=3),
    "chunked": dict(past=2, new=6, chunk=4),
    "prefix-lm": dict(past=0, new=5, prefix=2),
    "packed": dict(past=0, new=8, documents=(3, 2, 3)),
    "draft-tree": dict(past=3, new=5, tree=(-1, 0, 0, 1, 2)),
    "streaming": dict(past=4, new=4, window=3, sinks=2),
}
#: What a preset resets before setting its own fields.
PRESET_RESET: dict[str, object] = dict(
    pad=0, pad_side="left", causal=True, q=None, k=None, v=None, v_override=(), score_override=(),
    window_right=None, pad_keys=None, cache_slots=0, sinks=None, **{name: None for name in PATTERN_FIELDS},
)


def preset_changes(name: str) -> dict[str, object]:
    """The config changes of preset `name`; unknown names raise MaskattnError."""
    if name not in PRESETS:
        raise MaskattnError("explore_preset", field="preset", value=name, choices=", ".join(PRESETS))
    return {**PRESET_RESET, **PRESETS[name]}


def matching_preset(config: "ExploreConfig") -> str | None:
    """The preset this configuration is (the panel shows it), or None."""
    for name in PRESETS:
        if all(getattr(config, k) == v for k, v in preset_changes(name).items()):
            return name
    return None
