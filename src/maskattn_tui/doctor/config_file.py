"""`--config`: a Hugging Face config.json, or a model folder holding one,
read as plain JSON (never the network, never a model's code). A folder's
config.json may not be a link out of the folder."""

from __future__ import annotations

import json
import os

from maskattn_tui.doctor.file_checks import read_bounded, short_reason
from maskattn_tui.errors import MaskattnError

#: A config.json is a few kB; anything this large is not one.
CONFIG_LIMIT = 4 << 20


def config_path(name: str) -> str:
    """The config.json that `name` (a file or a model folder) stands for."""
    if not os.path.isdir(name):
        return name
    path = os.path.join(name, "config.json")
    if not os.path.lexists(path):
        raise MaskattnError("intent_folder_no_config", folder=name)
    inside = os.path.realpath(name)
    if os.path.commonpath([inside, os.path.realpath(path)]) != inside:
        raise MaskattnError("intent_config_link", file=path)
    return path


def read_config(name: str) -> tuple[str, dict]:
    """(the path read, its JSON object); one line (MaskattnError) when it is
    missing, no JSON, or not an object."""
    path = config_path(name)
    data = read_bounded(path, CONFIG_LIMIT)
    try:
        document = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise MaskattnError("intent_config_not_json", file=path, reason=short_reason(exc)) from None
    if not isinstance(document, dict):
        raise MaskattnError("intent_not_object_file", file=path)
    return path, document
