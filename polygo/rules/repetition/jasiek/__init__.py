"""Jasiek's New Ko Rules (1998), read beside ``shared/rule-texts/jasiek-new-ko-rules-1998.txt``:

    shapes.py    ko mouths (J1): the two-point mouth and the reconstructed larger shapes
    analysis.py  ko strings, couplings, ko positions (J2-J5), kept up to date play by play
    kinds.py     the ko types (J6-J15) and disturbing a disturbing ko (J16)
    rules.py     the four rules: basic ko, fighting, disturber, prohibition
"""

from .rules import NewKoRules

__all__ = ["NewKoRules"]
