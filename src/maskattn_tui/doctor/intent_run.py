"""The run of `doctor FILE --config config.json [--layer N] [--past P]
[--token-type-ids ...] [--attention-mask ...]`: read the config, derive
each layer's intent, check the mask against each distinct one, and tell
which layers' intents it matches (--layer: that one layer's, with the
cells and a grid when it differs, as --expect tells them).

Exit 0: the mask matches the chosen layer's intent (without --layer: some
layer's); 1: it differs (without --layer: from every layer's); 2: bad
input, or a config whose intent cannot be derived."""

from __future__ import annotations

import numpy as np

from maskattn_tui.doctor.config_file import read_config
from maskattn_tui.doctor.expect_run import first_grid, result_lines, results_json
from maskattn_tui.doctor.intent_check import (Geometry, Inputs, Intended, SiteResult, check, geometry,
                                              past_that_matches)
from maskattn_tui.doctor.representation import Reading, classify
from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.intent.config import NO_MASK, Site, derive, unknown_kinds
from maskattn_tui.intent.table import LayerIntent

SCHEMA = "maskattn-doctor-intent/1"


def _chosen(sites: list[Site], layer: str | None, model: str) -> list[Site]:
    """The sites --layer names (all without it); one line and exit 2 when
    it names none, or a layer that takes no mask or has no known rule."""
    if layer is None:
        known = [s for s in sites if s.intent is not None]
        if not known:
            raise MaskattnError("intent_none_derivable", model=model,
                                types=",".join(sorted({s.layer_type for s in sites})))
        return known
    every = next((s for s in sites if s.name == "*"), None)
    site = next((s for s in sites if s.name == layer), None)
    if site is None and every is not None and layer.isdigit():
        site = Site(layer, every.layer_type, every.intent)
    if site is None:
        raise MaskattnError("intent_no_layer", layer=layer, model=model,
                            names=", ".join(s.name for s in sites if s.name != "*") or "0, 1, ...")
    if site.intent is None:
        key = "intent_layer_no_mask" if site.layer_type in NO_MASK else "intent_layer_unknown"
        raise MaskattnError(key, layer=layer, type=site.layer_type, model=model)
    return [site]


def _what(sites: tuple[Site, ...], lang: str) -> str:
    first = sites[0]
    if first.name in ("encoder", "decoder", "cross"):
        return t(f"intent.site.{first.name}", lang)
    if first.name == "*":
        return t("intent.site.every", lang)
    key = "intent.site.layers" if len(sites) > 1 else "intent.site.layer"
    return t(key, lang, layers=",".join(s.name for s in sites), type=first.layer_type)


def intent_text(intent: LayerIntent, lang: str, blocks: bool) -> str:
    """The rule in words: "sliding window 3 (q - 3 < k <= q)"."""
    text = t(f"intent.kind.{intent.kind}", lang, w=intent.window, c=intent.chunk)
    if blocks:
        text += t("intent.blocks_cut" if intent.window_bounds_groups else "intent.blocks", lang)
    return text


def _options(r: SiteResult, lang: str, blocks: bool) -> str:
    return t("intent.options", lang, what=_what(r.sites, lang), rule=intent_text(r.intent, lang, blocks),
             source=r.sites[0].intent.source)


def _geo_of(rows: int, keys: int, past: int | None):
    return lambda site: geometry(rows, keys, past, site.intent.kind == "cross")


def _ends(pos: np.ndarray) -> list[int]:
    """[first, last] absolute position held (unused slots left out)."""
    used = pos[pos >= 0]
    return [int(used.min()), int(used.max())] if used.size else []


def _unused(geo: Geometry, lang: str) -> str:
    n = int((geo.k_pos < 0).sum())
    return t("intent.unused", lang, n=n) if n else ""


def _span(pos: np.ndarray) -> str:
    return "-".join(map(str, _ends(pos))) or "-"


def run(array, mask, info, args, lang: str, write, past: int | None) -> int:
    config_path, cfg = read_config(args.config)
    blocks = args.token_type_ids is not None
    sites = derive(cfg, token_types=blocks)
    text = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else cfg
    model = str(text.get("model_type") or cfg.get("model_type") or "?")
    chosen = _chosen(sites, args.layer, model)
    rows, keys = mask.shape
    polarity = args.polarity or "attend"
    inputs = Inputs(args.attention_mask, args.token_type_ids)
    geo_of = _geo_of(rows, keys, past)
    if args.attention_mask is not None:
        for site in chosen:  # one entry per position the keys hold (the cache's and the new tokens')
            need = int(geo_of(site).k_pos.max()) + 1
            if len(args.attention_mask) < need:
                raise MaskattnError("intent_attention_mask_short", got=len(args.attention_mask), need=need)
    results = check(array, info.path, args.batch, args.head, polarity, chosen, geo_of, inputs)
    matched = [r for r in results if r.match]
    ok = bool(matched) if args.layer is None else results[0].match
    # the header places the queries as the checked sites do (encoder keys when only cross-attention is)
    self_geo = geometry(rows, keys, past, all(s.intent.kind == "cross" for s in chosen))
    # per result, the --past that would make it match (None: it matches, or --past was given, or none does)
    hints = [None if past is not None or r.match else past_that_matches(mask, info.path, polarity, r.intent, inputs)
             for r in results]
    if args.json:
        write(_json(info, config_path, model, mask, polarity, self_geo, results, sites, inputs, args, ok, hints))
        return 0 if ok else 1
    total = rows * keys * max((sum(len(s.members) for s in r.results) for r in results), default=1)
    lines = [t("intent.header", lang, file=info.path, config=config_path, model=model, rows=rows, keys=keys,
               q=_span(self_geo.q_pos), k=_span(self_geo.k_pos) + _unused(self_geo, lang))]
    for r, hint in zip(results, hints):
        if r.match:
            lines.append(t("doctor.expect.match", lang, file=info.path, rows=rows, keys=keys,
                           options=_options(r, lang, blocks)))
        elif r.not_square:
            lines.append(t("intent.not_square", lang, file=info.path, rows=rows, keys=keys,
                           options=_options(r, lang, blocks)))
        elif r.count:
            lines += result_lines(r.results, info.path, _options(r, lang, blocks), total, lang)
        else:
            lines.append(t("intent.cells_match", lang, file=info.path, options=_options(r, lang, blocks)))
        if r.unheld_count:
            shown = ",".join(map(str, r.unheld)) + (" …" if r.unheld_count > len(r.unheld) else "")
            lines.append(t("intent.unheld", lang, positions=shown, n=r.unheld_count))
        if hint is not None:
            lines.append(t("intent.past_hint", lang, past=hint, k=hint + rows))
    lines += _notes(results, sites, inputs, args, past is None and keys > rows, lang)
    if args.layer is not None and results[0].count:  # a grid of the cells (unheld keys have none)
        r, geo = results[0], geo_of(results[0].sites[0])
        lines += first_grid(array, info.path, r.results, polarity, lambda index: _wanted(array, index, info.path,
                            polarity, r.intent, geo, inputs), lang)
    write("\n".join(lines))
    return 0 if ok else 1


def _wanted(array, index, path, polarity, intent, geo: Geometry, inputs: Inputs):
    mask = array[index] if index else array
    reading = Reading(mask, classify(mask, path), polarity)
    return Intended(intent, geo, Inputs(inputs.attention_mask, inputs.token_type_ids), reading).rows


def _notes(results: list[SiteResult], sites: list[Site], inputs: Inputs, args, past_guessed: bool,
           lang: str) -> list[str]:
    out = []
    pad = sorted({k for keys in inputs.pad_read.values() for k in keys})
    if pad:
        out.append(t("intent.pad_read", lang, keys=",".join(map(str, pad[:20])) + (" …" if len(pad) > 20 else "")))
    if args.layer is None:
        for key, found in (("intent.no_mask", [s for s in sites if s.layer_type in NO_MASK]),
                           ("intent.unknown_kind", unknown_kinds(sites))):
            if found:
                out.append(t(key, lang, layers=",".join(s.name for s in found),
                             types=",".join(sorted({s.layer_type for s in found}))))
        if any(not r.match for r in results) and any(r.match for r in results):
            out.append(t("intent.pick_layer", lang))
    if past_guessed and any(r.intent.kind == "chunked" for r in results):  # a cache step placed by its shape
        out.append(t("intent.chunk_past", lang))
    return out


def _intent_json(intent: LayerIntent) -> dict:
    return {"kind": intent.kind, "window": intent.window, "chunk": intent.chunk, "source": intent.source,
            "window_bounds_groups": intent.window_bounds_groups}


def _json(info, config_path, model, mask, polarity, geo: Geometry, results, sites, inputs: Inputs, args,
          ok: bool, hints: list[int | None]) -> str:
    from maskattn_tui.doctor import report
    from maskattn_tui.doctor.expect_result import ExpectResult

    out_sites = []
    for r, hint in zip(results, hints):
        out_sites.append({
            "layers": [s.name for s in r.sites], "layer_type": r.sites[0].layer_type,
            "intent": _intent_json(r.sites[0].intent),
            **ExpectResult.of_slices(None, r.results, r.count).as_json(), "match": r.match,
            "unheld_positions": list(r.unheld), "unheld_count": r.unheld_count,
            "not_square": r.not_square, "matches_with_past": hint,
            "slices": results_json(r.results) if len(r.results) > 1 or (r.results and r.results[0].index) else None,
        })
    return report.dumps({
        "schema": SCHEMA, "file": info.path, "config": config_path, "model_type": model,
        "shape": list(mask.shape), "representation": classify(mask, info.path).kind, "polarity": polarity,
        "past": geo.past, "past_given": geo.past_given, "query_positions": _ends(geo.q_pos),
        "key_positions": _ends(geo.k_pos), "unused_slots": int((geo.k_pos < 0).sum()), "layer": args.layer,
        "match": ok,
        "pad_keys_read": sorted({k for keys in inputs.pad_read.values() for k in keys}),
        "sites": out_sites,
        "no_mask_layers": [s.name for s in sites if s.layer_type in NO_MASK],
        "unknown_layers": [{"layer": s.name, "layer_type": s.layer_type} for s in unknown_kinds(sites)],
    })
