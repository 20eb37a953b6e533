"""`maskattn-tui doctor FILE.py:NAME --q-len Q --kv-len K [--block N]
[--batch B --head H] [--expect ...] [--json]`: a user's mask_mod diagnosed
by tiles (scale.tiles), never built whole.

FILE.py is imported and run: it is the user's code, on their request."""

from __future__ import annotations

import sys
import time

import numpy as np

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.scale import report
from maskattn_tui.scale.blocks import from_runs
from maskattn_tui.scale.intervals import rule_runs
from maskattn_tui.scale.mask_mod import check_index, depends_on, evaluator, load, one_thread, split_spec, users_code
from maskattn_tui.scale.reading import ModReading, diagnose_mod, expect_mod
from maskattn_tui.scale.tiles import TILE_CELLS, cores, scan

#: The longest side accepted (as explore.fields.MASK_MAX).
MAX_LEN = 1 << 20
#: Blocks at most (Q x K at the block size): the map and its int64 sums are O(blocks).
MAX_BLOCKS = 1 << 24
#: Seconds between two progress lines (a person reads it; a pipe never gets it).
PROGRESS_EVERY = 0.5
#: The largest block side: a tile holds at least one block (4096² cells, 16 MiB).
MAX_BLOCK = 4096


def _write(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _lengths(args) -> tuple[int, int, int, int]:
    q_len, kv_len = getattr(args, "q_len", None), getattr(args, "kv_len", None)
    if q_len is None or kv_len is None:
        raise MaskattnError("scale_needs_lengths", option="--q-len" if q_len is None else "--kv-len")
    for option, value in (("--q-len", q_len), ("--kv-len", kv_len)):
        if not 1 <= value <= MAX_LEN:
            raise MaskattnError("scale_length", option=option, value=value, hi=MAX_LEN)
    block = getattr(args, "block", None) or 128
    for option, value in (("--block", block), ("--built-block", getattr(args, "built_block", None))):
        if value is not None and not 1 <= value <= MAX_BLOCK:
            raise MaskattnError("scale_length", option=option, value=value, hi=MAX_BLOCK)
    blocks = -(-q_len // block) * -(-kv_len // block)
    if blocks > MAX_BLOCKS:  # the block map and its sums are O(blocks)
        raise MaskattnError("scale_blocks", block=block, blocks=blocks, most=MAX_BLOCKS)
    return q_len, kv_len, block, block


def _reuse(args, ev, fresh, used: tuple[int, int, int]):
    """--built-for Q0,K0 / --built-block N: the BlockMask reused (scale.reuse)."""
    built_for, built_block = getattr(args, "built_for", None), getattr(args, "built_block", None)
    if built_for is None and built_block is None:
        return None
    from maskattn_tui.scale.reuse import reuse

    if built_for is not None and len(built_for) != 2:
        raise MaskattnError("scale_built_for", value=",".join(map(str, built_for)))
    q0, k0 = built_for if built_for is not None else used[:2]
    for option, value in (("--built-for", q0), ("--built-for", k0)):
        if not 1 <= value <= MAX_LEN:
            raise MaskattnError("scale_length", option=option, value=value, hi=MAX_LEN)
    return reuse(ev.tile, fresh, (q0, k0, built_block or used[2]))


def _on_terminal(args) -> bool:
    """Progress is for a person watching: stderr a terminal, and not --json."""
    try:
        return not args.json and sys.stderr is not None and sys.stderr.isatty()
    except (ValueError, OSError):  # a closed stderr
        return False


def _progress(lang: str, started: float, workers: int):
    """A long scan says how far it is: the tiles done of all, the time
    taken, the threads (stderr, one line rewritten at most twice a second,
    cleared at the end)."""
    last = [time.perf_counter()]

    def tell(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= PROGRESS_EVERY:
            last[0] = now
            sys.stderr.write("\r\x1b[K" + t("scale_user.progress", lang, done=f"{done:,}", total=f"{total:,}",
                                             percent=100 * done // total, seconds=f"{now - started:.0f}",
                                             workers=workers))
            sys.stderr.flush()
    return tell


def run(args, lang: str) -> int:
    from maskattn_tui.doctor.expect_args import described as _described, expect_options as _expect_options

    q_len, kv_len, qb, kb = _lengths(args)
    options = _expect_options((q_len, kv_len), args) if args.expect else None
    spec = args.file
    if options is not None and (options.new, options.keys) != (q_len, kv_len):  # before minutes of tiles
        raise MaskattnError("doctor_expect_shape", file=spec, rows=q_len, keys=kv_len, new=options.new,
                            past=options.past, want=options.keys)
    b, h = check_index("--batch", args.batch), check_index("--head", args.head)
    started = time.perf_counter()
    watched = _on_terminal(args)
    try:
        with users_code():  # what their module prints goes to stderr: stdout is the report
            found = _evaluate(args, spec, q_len, kv_len, qb, kb, b, h, options,
                              _progress(lang, started, cores()) if watched else None)
    finally:
        if watched:
            sys.stderr.write("\r\x1b[K")  # the progress line, if any
            sys.stderr.flush()
    ev, depends, result, diag, expect, reused = found
    seconds = time.perf_counter() - started
    return _report(args, lang, spec, q_len, kv_len, b, h, ev, depends, result, diag, expect, reused, seconds)


def _evaluate(args, spec: str, q_len: int, kv_len: int, qb: int, kb: int, b: int, h: int, options, progress):
    """The user's module imported and their mask_mod read: engine, per-index
    dependence, the scan, the reading, --expect's cells, a reuse."""
    fn = load(spec)
    name = split_spec(spec)[1]
    ev = evaluator(fn, name, q_len, kv_len, b, h)
    depends = depends_on(fn, name, q_len, kv_len, b, h)
    with one_thread(ev.engine):
        result = scan(ev.tile, q_len, kv_len, qb, kb, progress, workers=cores())
        reading = ModReading(ev, q_len, kv_len)
        diag = diagnose_mod(reading, result.stats)
        expect = None
        if options is not None:
            rule = options.rule()
            comp = expect_mod(reading, result.stats, rule)
            shown = [bool(ev.tile(r, r + 1, k, k + 1)[0, 0]) for r, k in comp.cells]
            extra = [list(c) for c, s in zip(comp.cells, shown) if s]
            missing = [list(c) for c, s in zip(comp.cells, shown) if not s]
            expect = (options, comp, extra, missing, from_runs(rule_runs(rule), qb, kb))
        reused = _reuse(args, ev, result, (q_len, kv_len, qb))
    return ev, depends, result, diag, expect, reused


def _report(args, lang: str, spec: str, q_len: int, kv_len: int, b: int, h: int, ev, depends, result, diag,
            expect, reused, seconds: float) -> int:
    cells = q_len * kv_len
    if args.json:
        from maskattn_tui.doctor.expect_result import ExpectResult
        from maskattn_tui.doctor.report import dumps

        document = {"schema": report.SCHEMA, "mask_mod": spec, "q_len": q_len, "kv_len": kv_len,
                    "batch": b, "head": h, "engine": ev.engine, "tile_cells": TILE_CELLS,
                    "visible": result.visible, "density": result.visible / cells,
                    "depends_on": [{"option": o, "index": i, "row": r, "key": k} for o, i, r, k in depends],
                    "blocks": report.blocks_json(result.blocks), "reading": report.reading_json(diag),
                    "seconds": round(seconds, 3)}
        if reused is not None:
            document["reuse"] = report.reuse_json(reused)
        if expect is not None:
            options, comp, extra, missing, rule_blocks = expect
            document["expect"] = {
                **ExpectResult(options.as_dict(), comp.count, comp.cells, tuple(map(tuple, extra)),
                               tuple(map(tuple, missing))).as_json(),
                "blocks_differ": int(np.count_nonzero(rule_blocks.kind != result.blocks.kind))}
        _write(dumps(document))
    else:
        lines = [t("scale.head", lang, spec=spec, q_len=q_len, kv_len=kv_len, b=b, h=h, engine=ev.engine,
                   tile=TILE_CELLS, seconds=f"{seconds:.2f}"),
                 *[t("scale.depends", lang, option=o, index=i, row=r, k=k, b=b, h=h) for o, i, r, k in depends],
                 *report.block_lines(result.blocks, lang),
                 t("scale.visible", lang, visible=result.visible, cells=cells,
                   density=f"{100 * result.visible / cells:.4g}"),
                 *report.reading_lines(diag, lang), "", result.blocks.picture(b, h)]
        if reused is not None:
            lines += ["", *report.reuse_lines(reused, lang)]
        if expect is not None:
            from maskattn_tui.doctor.expect_args import described

            options, comp, extra, missing, rule_blocks = expect
            lines += ["", *report.expect_lines(spec, comp, extra, missing, described(options), cells,
                                                rule_blocks, result.blocks, lang)]
        _write("\n".join(lines))
    return 1 if expect is not None and expect[1].count else 0
