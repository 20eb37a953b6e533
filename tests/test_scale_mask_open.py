"""--mask FILE.py:NAME --q-len Q --kv-len K: mask mode on a mask_mod (up to
16,384², the size mask mode holds), its table equal to torch's create_mask."""

import numpy as np
import pytest

from maskattn_tui.cli import main

torch = pytest.importorskip("torch")
from torch.nn.attention.flex_attention import create_mask  # noqa: E402

from maskattn_tui.maskmode.mask_mod_doc import open_mask_mod  # noqa: E402

MOD = '''
import torch
from torch.nn.attention.flex_attention import and_masks

def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx

def near(b, h, q_idx, kv_idx):
    return q_idx - kv_idx < 100 + h

window = and_masks(causal, near)
'''


@pytest.fixture()
def spec(tmp_path) -> str:
    path = tmp_path / "mods.py"
    path.write_text(MOD)
    return f"{path}:window"


def test_the_table_mask_mode_reads_is_create_masks(spec):
    doc = open_mask_mod(spec, 700, 900, None, 2, None)
    from maskattn_tui.scale.mask_mod import load

    want = create_mask(load(spec), 1, 3, 700, 900, device="cpu")[0, 2].numpy()
    assert np.array_equal(doc.tables.user(0, 700, 0, 900), want)
    assert doc.tables.diagnosis.rule.window == 102  # h=2: 100 + h keys


def test_print_mask_mode_on_a_mask_mod(spec, capsys):
    assert main(["print", "--mask", spec, "--q-len", "512", "--kv-len", "512", "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert "sliding window, 100 keys including itself" in out


@pytest.mark.parametrize("argv,says", [
    (["--q-len", "60000", "--kv-len", "60000"], "reads it by blocks"),
    (["--q-len", "500"], "needs --kv-len"),
    (["--q-len", "50", "--kv-len", "50", "--scores", "s.npy"], "--scores is for a saved mask"),
])
def test_refusals_are_one_line(spec, capsys, argv, says):
    assert main(["print", "--mask", spec, *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err


def test_lengths_without_a_mask_mod_are_refused(tmp_path, capsys):
    np.save(tmp_path / "m.npy", np.tri(8, dtype=bool))
    assert main(["print", "--mask", str(tmp_path / "m.npy"), "--q-len", "8"]) == 2
    assert main(["print", "--q-len", "8"]) == 2
