"""`python -m maskattn_tui` runs the same CLI as the console script."""

from maskattn_tui.cli import main

raise SystemExit(main())
