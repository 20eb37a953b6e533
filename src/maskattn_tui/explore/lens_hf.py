"""How transformers' masking_utils (5.24) spells a table's rules, and the
table it then computes; explore.api_lens adds the prefix (token_type_ids),
packed documents (position_ids) and its notes.

* create_causal_mask: k <= past + r (past from the cache: with a StaticCache
  the filled keys, and max_cache_len = every key); a decoder is causal even
  when the table is not (the lens then says it differs).
* sliding_window (config): causal, W keys including itself; two-sided
  (create_bidirectional_sliding_window_mask), |q - k| <= W on both sides.
* attention_chunk_size: chunks counted from the first real token.
* block_sequence_ids: a query and a key of one block (id >= 0) always see
  each other (blockwise_overlay, OR-ed over the rules above); the 2D
  attention_mask then hides PAD keys, and unused cache slots are hidden."""

from __future__ import annotations

from maskattn_tui.engine.rules import Pattern
from maskattn_tui.engine.visibility import VisibilityTable

BoolRows = list[list[bool]]


def _and(a: BoolRows, b: BoolRows) -> BoolRows:
    return [[x and y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]


def hf_rules(table: VisibilityTable, p: Pattern) -> tuple[BoolRows, dict, list[str], int]:
    """(table so far, arguments, rules it cannot say, past) for the causal,
    window and chunk rules."""
    rows, cols = len(table.query_positions), len(table.key_positions)
    filled = cols if p.slots_from is None else p.slots_from
    past = filled - rows
    arguments: dict = {} if p.slots_from is None else {"max_cache_len": cols}
    # a decoder's create_causal_mask; only a two-sided window names the bidirectional builder
    bidirectional = not table.causal and p.window_right is not None
    api = [[k <= past + r or bidirectional for k in range(cols)] for r in range(rows)]
    cannot: list[str] = []
    if p.window is not None and p.window_right is not None:
        arguments["sliding_window"] = p.window - 1
        if p.window_right != p.window - 1:
            cannot.append("window_right")  # one width for both sides
        api = _and(api, [[abs(k - past - r) < p.window for k in range(cols)] for r in range(rows)])
    elif p.window is not None:
        arguments["sliding_window"] = p.window
        api = _and(api, [[k > past + r - p.window for k in range(cols)] for r in range(rows)])
    if p.chunk is not None:
        arguments["attention_chunk_size"] = p.chunk
        o = p.chunk_origin  # HF's chunked_overlay subtracts the left padding
        api = _and(api, [[(k - o) // p.chunk == (past + r - o) // p.chunk for k in range(cols)] for r in range(rows)])
    return api, arguments, cannot, past


def hf_finish(table: VisibilityTable, p: Pattern, api: BoolRows, arguments: dict, past: int) -> BoolRows:
    """Blocks OR-ed in, then PAD keys and unused cache slots hidden."""
    filled = len(table.key_positions) if p.slots_from is None else p.slots_from
    if p.islands:
        ids = [next((i for i, (a, b) in enumerate(p.islands) if a <= k < b), -1) for k in range(filled)]
        arguments["block_sequence_ids"] = ids
        api = [[ok or (k < filled and ids[k] >= 0 and ids[k] == ids[past + r]) for k, ok in enumerate(row)]
               for r, row in enumerate(api)]
    return [[ok and not pad and k < filled for k, (ok, pad) in enumerate(zip(row, table.key_is_pad))] for row in api]
