"""The function words of the languages notes are often written in besides English: articles,
prepositions, pronouns, the verbs "to be" and "to become", question words.

The search index drops English ones only (each language would need its own, and a word of one
is a term of another). Reading a question, though, "¿Quién es el responsable del marketing?"
shares "es", "el" and "del" with any Spanish note: counted as said, they hid that no note
mentions marketing, and the note of another responsibility was quoted with confidence. Words
that are English words too ("die", "den", "war", "son", "plus", "lang") are left out of the
list.
"""

from __future__ import annotations

FUNCTION_WORDS: frozenset[str] = frozenset(
    """
    el la los las un una unos unas del al de en es son está están estar por para con sin
    sobre que se su sus lo le les muy más cuando donde dónde quién quiénes qué cuál cuáles
    cuánto cuántos cuánta cuántas cómo hay fue era ser y o
    le les une des du au aux et ou est sont été être pour par avec dans sur qui quoi quel
    quelle quels quelles ce cette ces sa ses leur leurs il elle ils elles nous vous ne pas
    combien comment où quand pourquoi
    der das dem des ein eine einer eines einem einen und oder ist sind wird werden wurde
    wurden für von zu zur zum im auf aus bei nach über unter wie wer wen wem was wo wann
    welche welcher welches welchen warum nicht kein keine keinen es sie er wir ihr sich auch
    noch lange viele wieviel wieviele
    os um uma do da dos das em é são quem qual quais quando onde quanto quantos
    il lo gli di della delle dei degli che chi è sono per uno si ci ne nel nella sul sulla
    alla dove dov'è cos'è com'è quale quali quanta quanti quante
    tempo leva levam demora temps
    het een van voor wat wie waar wanneer hoe zijn wordt worden laat duurt
    """.split()
)
