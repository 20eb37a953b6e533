"""The Hugging Face modeling files whose attention does not go through the
attention interface capture wraps (`AttentionInterface.get_interface`),
computed from the installed transformers by reading every modeling file
(each top-level class that may compute attention parsed with ast; nothing
imported), and docs/capture.md's list of them checked
complete and exact. Two groups, as capture treats them at run time
(torch_modules._bypasses): an attention class (named *Attention*) whose
forward takes `attention_mask` is recorded from that argument; any other
class that computes attention itself is not seen (only an SDPA call inside
it). Then a model of the first group, recorded that way, end to end."""

import ast
import os
import re

import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "capture.md")
#: calls that compute attention: a softmax (in a class named for attention) or a kernel
_KERNELS = {"scaled_dot_product_attention", "flash_attn_func", "flash_attn_varlen_func", "flex_attention"}


def _called(node) -> set:
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            names.add(f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None)
    return names


def _named(node) -> set:
    return {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(node)
            if isinstance(n, (ast.Attribute, ast.Name))}


def _classes(text: str):
    """The source of each top-level class (its lines up to the next top-level statement)."""
    chunk = None
    for line in text.splitlines(keepends=True):
        if line.startswith("class "):
            if chunk:
                yield "".join(chunk)
            chunk = [line]
        elif chunk is not None and line[:1] not in ("", " ", "\t", "\n", "\r", "#", ")", "]"):
            yield "".join(chunk)
            chunk = None
        elif chunk is not None:
            chunk.append(line)
    if chunk:
        yield "".join(chunk)


#: words one of which a class computing attention must contain (a cheap
#: filter; the class's syntax tree decides)
_WORDS = ("softmax", "attention_forward", "ALL_ATTENTION_FUNCTIONS", *_KERNELS)


def bypassing() -> tuple[dict, dict]:
    """({model file: [classes recorded from attention_mask]}, {model file: [classes not seen]})."""
    root = os.path.join(os.path.dirname(transformers.__file__), "models")
    recorded: dict = {}
    unseen: dict = {}
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if not (name.startswith("modeling_") and name.endswith(".py")):
                continue
            with open(os.path.join(path, name), encoding="utf-8") as file:
                text = file.read()
            shown = folder if name == f"modeling_{folder}.py" else f"{folder}/{name[:-3]}"
            for source in _classes(text):
                if "get_interface" in source or not any(word in source for word in _WORDS):
                    continue
                try:
                    node = ast.parse(source).body[0]
                except SyntaxError:  # a class cut short by a line at column 0 inside a string: the whole file
                    wanted = source.split("(", 1)[0].split(":", 1)[0].split()[1]
                    node = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == wanted)
                calls, named = _called(node), _named(node)
                attention_named = "attention" in node.name.lower() or "attn" in node.name.lower()
                computes = bool(calls & _KERNELS) or any(c and c.endswith("attention_forward") for c in calls) \
                    or "ALL_ATTENTION_FUNCTIONS" in named or ("softmax" in calls and attention_named)
                if not computes:
                    continue
                forward = next((m for m in node.body if isinstance(m, ast.FunctionDef) and m.name == "forward"), None)
                arguments = [a.arg for a in forward.args.args + forward.args.kwonlyargs] if forward else []
                group = recorded if "Attention" in node.name and "attention_mask" in arguments else unseen
                group.setdefault(shown, []).append(node.name)
    return recorded, unseen


def _documented() -> tuple[set, set]:
    text = open(DOCS, encoding="utf-8").read()
    start, end = text.index("<!-- bypass list -->"), text.index("<!-- end of bypass list -->")
    recorded_part, unseen_part = text[start:end].split("Not seen")
    # each group's list follows the last "):" of its sentence
    return tuple(set(re.findall(r"`([a-z0-9_/]+)`", part.rsplit("):", 1)[1])) for part in (recorded_part, unseen_part))


def test_the_docs_list_every_modeling_file_that_bypasses_the_interface():
    recorded, unseen = bypassing()
    assert "falcon" in recorded and "sam" in unseen and len(recorded) > 50  # the scan itself works
    docs_recorded, docs_unseen = _documented()
    assert set(recorded) - docs_recorded == set(), "add these to docs/capture.md's first bypass group"
    assert set(unseen) - docs_unseen == set(), "add these to docs/capture.md's second bypass group"
    assert docs_recorded - set(recorded) == set() and docs_unseen - set(unseen) == set(), "no longer bypass"
    assert f"transformers {transformers.__version__}" in open(DOCS, encoding="utf-8").read()


def test_a_bypassing_model_is_recorded_from_its_attention_mask(tmp_path):
    """BLOOM (alibi, its own softmax): each layer's call from the mask its attention module was given."""
    from transformers import BloomConfig, BloomForCausalLM

    from maskattn_tui import capture

    torch.manual_seed(0)
    model = BloomForCausalLM(BloomConfig(vocab_size=64, hidden_size=32, n_layer=2, n_head=4, pad_token_id=0)).eval()
    ids = torch.tensor([[0, 5, 6, 7], [3, 4, 5, 6]])
    attention = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 1]])
    with torch.no_grad():
        plain = model(ids, attention_mask=attention).logits
        with capture(tmp_path) as cap:
            captured = model(ids, attention_mask=attention).logits
    assert torch.equal(plain, captured)
    calls = [c for c in cap.calls if c["kind"] == "hf"]
    assert [(c["site"], c["via"], c["q_len"], c["k_len"], c["batch"]) for c in calls] == [
        (f"transformer.h.{i}.self_attention", "module argument", 4, 4, 2) for i in range(2)]
