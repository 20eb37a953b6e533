"""What --mask names, read and diagnosed before the app (or `print --mask`)
starts: a saved mask file, a capture folder, or FILE.py:NAME, a mask_mod
(the user's code, run on their request). A bad one: one line, exit 2.

It stays in cli, not in maskmode/: it reads argparse's options and refuses
them with the parser's UsageError; the documents it opens are maskmode's."""

from __future__ import annotations

import os

from maskattn_tui.cli.parser import UsageError
from maskattn_tui.i18n import t


def mask_doc(args, lang: str):
    """--mask FILE read and diagnosed before the app starts (a bad file: one
    line, exit 2); None without --mask."""
    if args.mask is None:
        for dest, option in (("mask_batch", "--batch"), ("mask_head", "--head"), ("mask_call", "--call"),
                             ("mask_scores", "--scores"),
                             ("mask_block", "--block"), ("mask_q_len", "--q-len"), ("mask_kv_len", "--kv-len"),
                             ("mask_key", "--key")):
            if getattr(args, dest) is not None:
                raise UsageError(t("cli.mask_only", lang, option=option))
        return None
    if os.path.isdir(args.mask):  # a capture folder: its calls, one table at a time
        from maskattn_tui.maskmode.capture_doc import open_capture

        return open_capture(args.mask, args.mask_batch, args.mask_head, args.mask_call)
    if args.mask_call is not None:  # a call is a capture folder's
        raise UsageError(t("cli.mask_call_folder", lang))
    from maskattn_tui.scale.mask_mod import is_spec

    if is_spec(args.mask):  # FILE.py:NAME, a mask_mod: the user's code, run on their request
        from maskattn_tui.maskmode.mask_mod_doc import open_mask_mod

        return open_mask_mod(args.mask, args.mask_q_len, args.mask_kv_len, args.mask_batch, args.mask_head,
                             args.mask_scores)
    if args.mask_q_len is not None or args.mask_kv_len is not None:
        raise UsageError(t("cli.mask_only", lang, option="--q-len" if args.mask_q_len is not None else "--kv-len"))
    from maskattn_tui.maskmode.saved_doc import open_mask

    return open_mask(args.mask, args.mask_batch, args.mask_head, args.mask_scores, key=args.mask_key)
