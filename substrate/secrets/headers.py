"""An HTTP header kept apart from its name: a JSON field, a CSV column, a front-matter key
named ``Authorization`` holding ``Basic dXNl...``.

The header rules need the header's name before its value, as a header line has it; the value
alone names no secret. Such a value is judged as the line ``Authorization: <value>``.
"""

from __future__ import annotations

import re

from substrate.secrets.engine import find_secrets
from substrate.secrets.hits import Hit, shifted_hit

# Authorization, Proxy-Authorization, HTTP_AUTHORIZATION, x.authorization, proxyAuthorization
_HEADER_KEY = re.compile(r"(?:^|[-_.])(?i:authorization)$|(?<=[a-z])Authorization$")
_HEADER_LINE = "Authorization: "


def is_header_key(key: str) -> bool:
    """Whether ``key`` names an Authorization header."""
    return _HEADER_KEY.search(key) is not None


def header_value_hits(value: str) -> list[Hit]:
    """The secrets of ``value`` read as the value of an ``Authorization`` header line, with
    offsets into ``value``."""
    shift = len(_HEADER_LINE)
    found = find_secrets(_HEADER_LINE + value)
    return [shifted_hit(h, -shift) for h in found if h.start >= shift]
