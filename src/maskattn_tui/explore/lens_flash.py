"""How FlashAttention spells a table, and the table it then computes.

Semantics from the Dao-AILab/flash-attention README (v2.1+; no GPU here, so
the tests hold this against a reference of their own):
* `flash_attn_func(q, k, v, causal, window_size=(left, right))`: query i of
  L reads key j of S when j <= i + S - L (causal, bottom-right) and
  i + S - L - left <= j <= i + S - L + right (-1 = no bound on that side).
* packed documents go through `flash_attn_varlen_func(q, k, v, cu_seqlens_q,
  cu_seqlens_k, max_seqlen_q, max_seqlen_k, ...)`: each sequence b is
  attended on its own, with the same rules inside it. With a cache
  (past > 0) a document's queries are only its last tokens, so cu_seqlens_q
  differs from cu_seqlens_k.
There is no padding mask (PAD keys are removed before the call), no chunk,
prefix or tree argument."""

from __future__ import annotations

from collections.abc import Sequence

from maskattn_tui.engine.rules import document_starts
from maskattn_tui.engine.visibility import VisibilityTable

BoolRows = list[list[bool]]


def flash_table(rows: int, cols: int, causal: bool, window_size: Sequence[int],
                cu_q: Sequence[int], cu_k: Sequence[int], bottom_right: bool = True) -> BoolRows:
    """The (rows, cols) visibility FlashAttention computes for packed
    sequences cu_q / cu_k (one sequence: [0, rows], [0, cols]).
    `bottom_right=False` is flash-attn 2.0's top-left causal."""
    left, right = window_size
    out = []
    for b in range(len(cu_q) - 1):
        lq, lk = cu_q[b + 1] - cu_q[b], cu_k[b + 1] - cu_k[b]
        for i in range(lq):
            diag = i + (lk - lq if bottom_right else 0)
            row = [False] * cols
            for j in range(lk):
                ok = (not causal or j <= diag) and (left < 0 or j >= diag - left) and (right < 0 or j <= diag + right)
                row[cu_k[b] + j] = ok
            out.append(row)
    return out


def flash_spelling(table: VisibilityTable) -> tuple[str, dict, list[str]]:
    """(api, arguments, rules it cannot say) for `table`; `arguments` holds
    what flash_table needs under the library's own names."""
    p = table.pattern
    cols = len(table.key_positions)
    causal = table.causal
    arguments: dict = {}
    if p is not None and p.window is not None:
        # FlashAttention keeps [i - left, i + right]: a distance, not a count
        right = p.window_right if p.window_right is not None else -1
        arguments["window_size"] = [p.window - 1, 0 if causal else right]
    cannot = [rule for rule in ("chunk", "prefix", "tree", "sinks") if p is not None and getattr(p, rule) is not None]
    if p is not None and p.islands:
        cannot.append("bidirectional")
    if p is not None and p.slots_from is not None:
        cannot.append("slots")
    if any(table.key_is_pad):
        cannot.insert(0, "pad")
    if p is None or p.documents is None:
        return "flash_attn.flash_attn_func", arguments, cannot
    cu_k = [*document_starts(p.documents), cols]
    counts = [sum(cu_k[b] <= q < cu_k[b + 1] for q in table.query_positions) for b in range(len(cu_k) - 1)]
    cu_q = [0]
    for n in counts:
        cu_q.append(cu_q[-1] + n)
    arguments = {
        "cu_seqlens_q": cu_q,
        "cu_seqlens_k": cu_k,
        "max_seqlen_q": max(counts),
        "max_seqlen_k": max(p.documents),
        **arguments,
    }
    return "flash_attn.flash_attn_varlen_func", arguments, cannot


def flash_tables(table: VisibilityTable, arguments: dict) -> tuple[BoolRows, BoolRows]:
    """(the table v2.1+ computes, the one 2.0's top-left causal computes)."""
    rows, cols = len(table.query_positions), len(table.key_positions)
    cu_q = arguments.get("cu_seqlens_q", [0, rows])
    cu_k = arguments.get("cu_seqlens_k", [0, cols])
    window = arguments.get("window_size", [-1, 0 if table.causal else -1])
    return (flash_table(rows, cols, table.causal, window, cu_q, cu_k),
            flash_table(rows, cols, table.causal, window, cu_q, cu_k, bottom_right=False))
