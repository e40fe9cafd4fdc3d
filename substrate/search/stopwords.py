"""English stopwords: function words that carry no topical signal.

The list is deliberately moderate (about 170 words). It drops determiners, pronouns, auxiliaries,
prepositions and conjunctions, plus the interrogatives that open natural-language questions
("what", "how", "which"), but keeps negations' content partners and every noun, so queries such
as "vitamin a" or "the who report" still find what they name through their other terms.
"""

from __future__ import annotations

ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are aren as at
    be because been before being below between both but by
    can cannot could couldn did didn do does doesn doing don down during
    each either etc few for from further had hadn has hasn have haven having he her here hers
    herself him himself his how however i if in into is isn it its itself just
    me more most must mustn my myself neither no nor not of off on once only or other
    our ours ourselves out over own same shall she should shouldn so some such
    than that the their theirs them themselves then there these they this those through thus
    to too under until up upon us very was wasn we were weren what whatever when where whether
    which while who whom whose why will with within without won would wouldn
    you your yours yourself yourselves
    """.split()
)
