"""scale's strings: both languages, the same placeholders, Chinese in the
Chinese; every key the scale package uses exists; numpy stays out of the
paths that must not load it even though print / json route through scale."""

import json
import re
import string
import subprocess
import sys
from importlib import resources
from pathlib import Path

from maskattn_tui.i18n import catalog


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_scale_strings():
    raw = json.loads((resources.files("maskattn_tui") / "data" / "strings" / "scale.json").read_text("utf-8"))
    for key, texts in raw.items():
        assert key.startswith(("scale.", "error.scale_")), key
        assert set(texts) == {"en", "zh"} and texts["en"].strip() and texts["zh"].strip(), key
        assert placeholders(texts["en"]) == placeholders(texts["zh"]), key
        assert "key" not in placeholders(texts["en"]), key  # t(key, lang, **params) takes `key` itself
        assert re.search(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]", texts["zh"]), key


def test_every_key_scale_uses_exists():
    keys = catalog()
    folder = Path(str(resources.files("maskattn_tui"))) / "scale"
    used = set()
    for path in folder.glob("*.py"):
        text = path.read_text("utf-8")
        used |= set(re.findall(r't\(\s*"((?:scale|doctor)\.[\w.\-]+)"', text))
        used |= {"error." + k for k in re.findall(r'MaskattnError\(\s*"(scale_\w+)"', text)}
    assert len(used) > 30
    assert used <= set(keys), used - set(keys)


def test_small_print_and_json_do_not_load_numpy():
    for argv in (["print", "--past", "3", "--new", "2"], ["json", "--new", "32", "--window", "64"]):
        code = ("import sys, io, contextlib\nfrom maskattn_tui.cli import main\n"
                "with contextlib.redirect_stdout(io.StringIO()):\n"
                f"    main({argv!r})\n"
                "print(' '.join(sorted(sys.modules)))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert "numpy" not in done.stdout.split(), argv
