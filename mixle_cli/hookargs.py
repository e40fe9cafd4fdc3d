"""File names that look like options, as the pre-commit hook passes them.

The pre-commit framework runs ``mixle scan-secrets --literal-paths``, then the hook's ``args``,
then the staged file names, with no ``--`` before them (one there would make the ``args``
file names too). A staged file named ``-h``, ``--json`` or ``--`` would then be read as an
option and not scanned: a file named ``-h`` alone turned the scan into a help page that
exits 0, and the commit went through with any secret beside it.

So, for ``scan-secrets --literal-paths`` only, an argument after that flag that looks like an
option and names a file that exists is taken as a file name: it moves after a ``--`` at the
end. An option the user meant that happens to name a file is then scanned as a file, except
``--all`` and ``--items``, which choose another thing to scan: they stay options, and beside
file names they are a usage error.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

LITERAL_FLAG = "--literal-paths"
# Options that choose what is scanned instead of the names: taken as options, they meet the
# names and the run stops as a usage error (exit 2), which blocks a commit all the same.
_MODES = frozenset({"--all", "--items"})


def files_named_like_options(argv: Sequence[str], command: str | None) -> list[str]:
    """``argv`` (without the program name) with option-shaped file names of a
    ``scan-secrets --literal-paths`` run moved after ``--`` at the end; else unchanged."""
    if command != "scan-secrets" or LITERAL_FLAG not in argv:
        return list(argv)
    start = argv.index(LITERAL_FLAG) + 1
    kept = list(argv[:start])
    names: list[str] = []
    for at in range(start, len(argv)):
        arg = argv[at]
        if arg.startswith("-") and arg != "-" and arg not in _MODES and os.path.lexists(arg):
            names.append(arg)
        elif arg == "--":  # the real end of the options: what follows is file names already
            names += argv[at + 1 :]
            break
        else:
            kept.append(arg)
    if not names and "--" not in argv[start:]:
        return list(argv)
    return [*kept, "--", *names]
