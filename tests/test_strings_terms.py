"""Terms in the string files: one Chinese word for each idea, spaced alike."""

import re

from maskattn_tui.i18n import catalog


def zh_texts():
    return {key: texts["zh"] for key, texts in catalog().items() if "zh" in texts}


def test_the_api_lens_has_one_chinese_name_everywhere():
    # "透镜" reads like an optical lens; a Chinese ML reader says "API 视角".
    texts = zh_texts()
    assert not [k for k, v in texts.items() if "透镜" in v]
    lens_keys = [k for k, v in catalog().items() if "API lens" in v["en"]]
    assert lens_keys and all("API 视角" in texts[k] for k in lens_keys), lens_keys


def test_ordinals_are_spaced_like_the_rest():
    # "第 0 行", "第 {k} 步": a space between the number and the characters.
    texts = zh_texts()
    tight = {k: v for k, v in texts.items() if re.search(r"第\{|\}[行步列项]|位置\{", v)}
    assert not tight, tight


def test_the_empty_row_policy_is_named_in_chinese_in_the_condition_line():
    # (the option value stays, so that a reader can type it: --empty-row uniform)
    from maskattn_tui.explore import ExploreConfig
    from maskattn_tui.explore.view import condition

    names = {"error": "报错", "nan": "NaN", "zeros": "置零", "uniform": "均匀"}
    for policy, word in names.items():
        zh = condition(ExploreConfig(empty_row_policy=policy), "zh")
        assert f"空行策略：{policy}（" in zh and word in zh.split("空行策略：")[1]
        assert condition(ExploreConfig(empty_row_policy=policy), "en").endswith(f"empty rows: {policy}")


def test_mask_query_and_pad_key_have_one_chinese_word():
    # 掩码 (not "mask" as a Chinese word: "请先把 mask 保存成文件"), 查询 (not
    # "Query"), "PAD Key" (not "PAD 键"); code names (attn_mask, mask_mod,
    # --mask, mask.to_dense(), "padding mask") stay as written.
    texts = zh_texts()
    cjk = r"[\u4e00-\u9fff]"
    word = re.compile(rf"{cjk} ?mask(?![\w.(\[=])|(?<![\w.\-~(\[+{{])mask ?{cjk}")
    assert not {k: v for k, v in texts.items() if word.search(v)}
    assert not {k: v for k, v in texts.items() if re.search(r"(?<![A-Za-z_])Query(?![A-Za-z_])", v)}
    assert not {k: v for k, v in texts.items() if re.search(r"PAD (键|key)", v)}


def test_no_space_before_a_full_width_parenthesis():
    # "表（" not "表 （" (an ASCII word before it keeps no space either: "Key（")
    texts = zh_texts()
    assert not {k: v for k, v in texts.items() if re.search(r"\S （", v)}
