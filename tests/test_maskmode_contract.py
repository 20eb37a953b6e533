"""Mask mode's document contract (maskmode/document.py): the four kinds of
document (a saved file, a capture folder's slice, a mask_mod, a long rule)
each implement it, with their optional parts declared; and the screen,
`print --mask` and the renderers read no attribute of a document, its
tables or its info outside it (watched while they draw every kind, and
read from their source), nor probe one with getattr / hasattr."""

import ast
import io
import sys
import typing
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

torch = pytest.importorskip("torch")
F = torch.nn.functional

import maskattn_tui  # noqa: E402
from maskattn_tui.cli.mask_print import print_mask  # noqa: E402
from maskattn_tui.maskmode.capture_doc import CallPicker, open_capture  # noqa: E402
from maskattn_tui.maskmode.document import DocInfo, MaskDocument  # noqa: E402
from maskattn_tui.maskmode.mask_mod_doc import open_mask_mod  # noqa: E402
from maskattn_tui.maskmode.rule_doc import RuleDoc  # noqa: E402
from maskattn_tui.maskmode.saved_doc import open_mask  # noqa: E402
from maskattn_tui.maskmode.tables import Tables  # noqa: E402
from maskattn_tui.render.palette import UNICODE, Palette  # noqa: E402
from maskattn_tui.scale.explore_big import big_config  # noqa: E402
from maskattn_tui.tui import make_app  # noqa: E402
from maskattn_tui.tui.mask_screen import MaskScreen  # noqa: E402

ROOT = Path(maskattn_tui.__file__).parent
#: The modules that read documents through the contract (the brief's list, and the views the screen holds).
READERS = ("tui/mask_screen.py", "tui/mask_goto.py", "tui/widgets/mask_views.py", "cli/mask_print.py",
           "render/mask_figure.py", "render/mask_lines.py", "render/mask_stats.py")
READER_MODULES = {"maskattn_tui." + p[:-3].replace("/", ".") for p in READERS}


def declared(cls) -> set[str]:
    """A class's declared names: its annotations and its public members, with its bases'."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is object or klass is typing.Protocol or klass.__module__ == "typing":
            continue
        names |= set(vars(klass).get("__annotations__", {}))
        names |= {n for n in vars(klass) if not n.startswith("_")}
    return names


CONTRACT = {"doc": declared(MaskDocument), "tables": declared(Tables), "info": declared(DocInfo)}

MOD = '''
def window(b, h, q_idx, kv_idx):
    return (q_idx >= kv_idx) & (q_idx - kv_idx < 50)
'''


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> dict[str, MaskDocument]:
    from maskattn_tui import capture

    tmp = tmp_path_factory.mktemp("docs")
    saved = tmp / "causal.npy"
    np.save(saved, np.tril(np.ones((40, 40), dtype=bool)))
    mods = tmp / "mods.py"
    mods.write_text(MOD)
    folder = tmp / "run"
    q = torch.randn(1, 2, 6, 8)
    with capture(folder):
        F.scaled_dot_product_attention(q, q, q, is_causal=True)
    return {"saved": open_mask(str(saved)), "capture": open_capture(str(folder)),
            "mask_mod": open_mask_mod(f"{mods}:window", 300, 300, None, None, None),
            "rule": RuleDoc(big_config(dict(past=0, new=70_000, window=300)))}


def test_each_kind_implements_the_contract(documents):
    for kind, doc in documents.items():
        assert isinstance(doc, MaskDocument), kind
        assert isinstance(doc.tables, Tables), kind
        info = doc.info
        assert isinstance(info.path, str) and info.format and len(info.shape) >= 2, kind
        assert (doc.tables.rows, doc.tables.keys) == tuple(info.shape[-2:]), kind
        w = doc.weights(3)
        assert doc.weights(3) is w and w.row == 3, kind  # kept
        assert np.isclose(w.weights.sum(), 1.0), kind
    # the optional parts: declared on every document, set only where they belong
    assert isinstance(documents["capture"].capture, CallPicker)
    assert all(documents[k].capture is None for k in ("saved", "mask_mod", "rule"))
    assert documents["rule"].rule_text is not None
    assert all(documents[k].rule_text is None for k in ("saved", "capture", "mask_mod"))
    assert documents["rule"].grid_title != documents["saved"].grid_title
    assert documents["rule"].tables.least > 1 and documents["saved"].tables.least == 1
    assert documents["mask_mod"].info.format == "mask_mod"
    assert documents["rule"].other_slice(0, 1) is None and documents["mask_mod"].other_slice(1, 1) is None


def test_the_weight_cache_keeps_the_last_rows_first_in_first_out(documents):
    """One cache (document.MaskDocument.weights) for every kind: WEIGHTS_KEPT
    rows, the first asked the first let go."""
    from maskattn_tui.maskmode.document import WEIGHTS_KEPT

    fresh = (open_mask(documents["saved"].path), RuleDoc(big_config(dict(past=0, new=70_000, window=300))))
    for doc in fresh:
        kept = {row: doc.weights(row) for row in range(WEIGHTS_KEPT)}
        assert all(doc.weights(row) is kept[row] for row in range(WEIGHTS_KEPT))  # asked again: kept
        doc.weights(WEIGHTS_KEPT)  # one more: row 0 (the first in) goes
        assert all(doc.weights(row) is kept[row] for row in range(WEIGHTS_KEPT - 1, 0, -1))
        again = doc.weights(0)
        assert again is not kept[0] and np.array_equal(again.weights, kept[0].weights)


class Watched:
    """A document (or its tables / info) that records which attributes the
    reader modules ask of it (their own frames only: the documents' own
    modules read their internals freely)."""

    def __init__(self, target, part: str, seen: set) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_part", part)
        object.__setattr__(self, "_seen", seen)

    def __getattr__(self, name: str):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        value = getattr(self._target, name)
        if caller in READER_MODULES:
            self._seen.add((self._part, name))
        if name in ("tables", "info") and self._part == "doc":
            return Watched(value, name, self._seen)
        return value


@pytest.mark.parametrize("kind", ["saved", "capture", "mask_mod", "rule"])
def test_print_mask_reads_only_the_contract(documents, kind):
    seen: set = set()
    for block in (None, 8) if kind != "rule" else (None,):
        console = Console(file=io.StringIO(), width=120, color_system=None, legacy_windows=False)
        print_mask(console, Watched(documents[kind], "doc", seen), "en", Palette(glyphs=UNICODE), block=block)
        assert console.file.getvalue().strip()
    assert seen, "nothing watched: the readers' module names changed"
    outside = {(part, name) for part, name in seen if name not in CONTRACT[part]}
    assert not outside


@pytest.mark.parametrize("kind", ["saved", "capture", "rule"])
async def test_the_screen_reads_only_the_contract(documents, kind):
    seen: set = set()
    app = make_app(mask=Watched(documents[kind], "doc", seen))
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MaskScreen)
        for key in ("down", "right", "b", "n", "plus", "enter", "escape"):
            await pilot.press(key)
            await pilot.pause()
    assert {"doc", "tables"} <= {part for part, _ in seen}
    outside = {(part, name) for part, name in seen if name not in CONTRACT[part]}
    assert not outside


def _source_reads(path: Path) -> tuple[set[str], list[str]]:
    """Attributes read of `doc` / `self.doc` / `screen.doc` in a reader's
    source, and any getattr / hasattr call (a probe)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    reads, probes = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = node.value
            if (isinstance(base, ast.Name) and base.id == "doc") or \
                    (isinstance(base, ast.Attribute) and base.attr == "doc"):
                reads.add(node.attr)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
                and ast.unparse(node.args[0]) != "self.app":  # the app's --labels, not a document
            probes.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return reads, probes


def test_the_readers_sources_name_only_the_contract_and_never_probe():
    reads, probes = set(), []
    for rel in READERS:
        got, found = _source_reads(ROOT / rel)
        reads |= got
        probes += found
    assert {"tables", "info", "capture", "rule_text"} <= reads <= CONTRACT["doc"]
    assert probes == []


def test_no_module_sets_a_documents_capability_from_outside():
    """A document's parts are set by its own class (saved_doc.SavedDoc(capture=...)),
    never assigned onto it by another module (as capture's picker once did)."""
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for leaf in ast.walk(target):
                        if isinstance(leaf, ast.Attribute) and leaf.attr in ("capture", "scores", "real", "rule_text") \
                                and not (isinstance(leaf.value, ast.Name) and leaf.value.id == "self"):
                            pytest.fail(f"{path.relative_to(ROOT)}:{node.lineno} sets .{leaf.attr} on another object")
