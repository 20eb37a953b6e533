"""`maskattn-tui --mask DIR` (and `o` on a capture folder): mask mode on a
capture, one call's slice at a time. The picker lists every (call, batch
row, head) slice of the calls that stand for one attention each; n / N go
to the next / previous call, m / M to the next / previous distinct mask
(its first call). Each step opens that slice's table as mask mode opens a
file (saved_doc.SavedDoc), the picker its declared `capture` (document.py)."""

from __future__ import annotations

from maskattn_tui.capture import folder as capture_folder
from maskattn_tui.capture.findings import cross_call, primary
from maskattn_tui.capture.summary import calls_text
from maskattn_tui.capture.table_files import CallsNote, read_table_of
from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.maskmode.saved_doc import SavedDoc, check_finite, open_mask


class CallPicker:
    def __init__(self, folder: str, document: dict, index: int = 0, found: list | None = None) -> None:
        self.folder = folder
        self.document = document
        #: the findings across calls that need no reading of a table (each call's own are mask mode's)
        self.found = cross_call(document["calls"], {}) if found is None else found
        self.entries: list[tuple[dict, int, int, str]] = []
        for call in primary(document["calls"]):
            mask = call.get("mask") or {}
            for b, row in enumerate(mask.get("hashes") or []):
                for h, digest in enumerate(row):
                    self.entries.append((call, b, h, digest))
        if not self.entries:
            raise MaskattnError("capture_no_masks", folder=folder)
        self.distinct = list(dict.fromkeys(e[3] for e in self.entries))
        self.index = index

    @property
    def entry(self) -> tuple[dict, int, int, str]:
        return self.entries[self.index]

    def _moved(self, index: int) -> "CallPicker | None":
        if index == self.index or not 0 <= index < len(self.entries):
            return None
        return CallPicker(self.folder, self.document, index, self.found)

    def call_step(self, delta: int) -> "CallPicker | None":
        """The first slice of the next (previous) call."""
        current = self.entry[0]["call"]
        calls = list(dict.fromkeys(e[0]["call"] for e in self.entries))
        at = calls.index(current) + delta
        if not 0 <= at < len(calls):
            return None
        return self._moved(next(i for i, e in enumerate(self.entries) if e[0]["call"] == calls[at]))

    def mask_step(self, delta: int) -> "CallPicker | None":
        """The first use of the next (previous) distinct mask."""
        at = self.distinct.index(self.entry[3]) + delta
        if not 0 <= at < len(self.distinct):
            return None
        return self._moved(next(i for i, e in enumerate(self.entries) if e[3] == self.distinct[at]))

    def slice_step(self, dim: int, delta: int) -> "CallPicker | None":
        """b / B (dim 0), h / H (dim 1): the same call's next / previous batch
        row or head, wrapping; None when the call has only one."""
        call, b, h, _ = self.entry
        same = [i for i, e in enumerate(self.entries)
                if e[0] is call and (e[2] == h if dim == 0 else e[1] == b)]
        return self._moved(same[(same.index(self.index) + delta) % len(same)]) if len(same) > 1 else None

    def at_call(self, number: int) -> "CallPicker":
        """--call N: the picker at call N's first slice (its slices only, for
        --batch / --head; an SDPA call made inside an HF layer: the layer's);
        refused naming the calls that have a table."""
        mine = [i for i, e in enumerate(self.entries) if e[0]["call"] == number]
        inner = next((c for c in self.document["calls"] if c["call"] == number and c.get("within") is not None), None)
        if not mine and inner is not None:  # an SDPA call inside an HF layer that has a table: the layer's
            mine = [i for i, e in enumerate(self.entries) if e[0]["call"] == inner["within"]]
        if not mine:
            numbers = list(dict.fromkeys(e[0]["call"] for e in self.entries))
            raise MaskattnError("capture_no_table_call", folder=self.folder, call=number,
                                calls=calls_text([{"call": n} for n in numbers]))
        return CallPicker(self.folder, self.document, mine[0], self.found)

    def at_slice(self, batch: int | None, head: int | None, this_call: bool = False) -> "CallPicker":
        """--batch / --head: the first call that has that slice (`this_call`:
        this call's slice); refused naming the batch rows and heads the calls
        (that call) have when none does."""
        where = [(i, e) for i, e in enumerate(self.entries) if not this_call or e[0] is self.entry[0]]
        for i, (_, b, h, _) in where:
            if batch in (None, b) and head in (None, h):
                return CallPicker(self.folder, self.document, i, self.found)
        option, value = ("--batch", batch) if batch is not None and all(e[1] != batch for _, e in where) \
            else ("--head", head)
        raise MaskattnError("capture_no_slice", folder=self.folder, option=option, value=value,
                            batch=max(e[1] for _, e in where), head=max(e[2] for _, e in where))

    def open(self) -> SavedDoc:
        """Mask mode's document for this slice, with this picker as its call
        picker; MaskattnError (naming the calls) when its table is refused."""
        call, _, _, digest = self.entry
        try:
            loaded = read_table_of(self.folder, digest, [call])
        except MaskattnError as problem:
            raise CallsNote([call], problem) from None
        doc = open_mask(loaded[1].path, loaded=loaded)
        scores = self._real_scores(doc.tables, loaded[0])
        return SavedDoc(doc.info, doc.tables, scores, real=scores is not None, capture=self)

    def _real_scores(self, tables, table):
        """capture --weights: the slice's q·kᵀ·scale + mask as the bars' scores
        (an SDPA call inside an HF layer reads the q and k its layer kept);
        None: the seeded bars, as without --weights."""
        call, b, h, digest = self.entry
        if "weights" not in call:
            parent = next((c for c in self.document["calls"] if c["call"] == call.get("within")), None)
            call = {**call, "weights": (parent or {}).get("weights")}
        if not call.get("weights"):
            return None
        import numpy as np

        from maskattn_tui.capture.real_weights import call_scores

        scores = call_scores(self.folder, call, b, h, np.asarray(table))
        if scores is None:
            return None
        try:
            check_finite(tables, scores, digest)
        except MaskattnError:  # a visible score that is not finite: the seeded bars, as without --weights
            return None
        return scores

    def label(self, lang: str, keys: bool = True) -> str:
        """Which call and slice this is (and what was left out); `keys`: the
        keys that step (the app's title, not a printout)."""
        from maskattn_tui.capture.summary import steps_text

        call, b, h, digest = self.entry
        calls = list(dict.fromkeys(e[0]["call"] for e in self.entries))
        return t("capture.picker.title", lang, call=call["call"], at=calls.index(call["call"]) + 1,
                 calls=len(calls), site=call.get("site") or call.get("user_frame") or "-",
                 steps=steps_text([call], lang), q=call["q_len"], k=call["k_len"], b=b, h=h,
                 mask=digest[:10], m=self.distinct.index(digest) + 1, masks=len(self.distinct)) + \
            self._findings(lang) + self._left_out(lang) + (t("capture.picker.keys", lang) if keys else "")

    def _left_out(self, lang: str) -> str:
        """What the folder's reader did not use (its lines, calls, files): how many, and where they are told."""
        notes = self.document.get("notes") or []
        count = len(notes) + getattr(notes, "more", 0)
        return t("capture_folder.picker_left_out", lang, count=count) if count else ""

    def _findings(self, lang: str) -> str:
        codes = [f"{t('doctor.level.' + f['level'], lang)}: {f['code']}" for f in self.found
                 if self.entry[0]["call"] in f["calls"]]
        return t("capture.picker.findings", lang, codes=", ".join(codes)) if codes else ""


def open_capture(folder: str, batch: int | None = None, head: int | None = None, call: int | None = None):
    """Mask mode's document for a capture folder: its first slice whose
    table can be read (none: the first one's reason, one line), or with
    --call / --batch / --head the first slice of that call / that slice."""
    picker = CallPicker(folder, capture_folder.load(folder))
    if call is not None:
        return picker.at_call(call).at_slice(batch, head, this_call=True).open()
    if batch is not None or head is not None:
        return picker.at_slice(batch, head).open()
    first, tried = None, set()
    for index, entry in enumerate(picker.entries):
        if entry[3] in tried:
            continue
        tried.add(entry[3])
        try:
            return (picker if index == 0 else CallPicker(folder, picker.document, index, picker.found)).open()
        except MaskattnError as problem:
            first = first or problem
    raise first
