"""Names: one written form, no invisible characters, look-alikes share a skeleton (issue 16, item 11)."""

import pytest

from polygo.protocol import ErrorCode, ProtocolError
from polygo.protocol.names import clean_name, skeleton


@pytest.mark.parametrize("given, written", [
    ("Alice", "Alice"), ("  alice  ", "alice"), ("Ａｌｉｃｅ", "Alice"), ("bob\u00a0 smith", "bob smith"),
    ("ﬁona", "fiona"), ("Zoë", "Zoë"), ("李小龍", "李小龍"),
])
def test_a_name_is_written_one_way(given, written):
    assert clean_name(given) == written


@pytest.mark.parametrize("name, why", [
    ("ali\x00ce", "control character"), (" ", "visible character"), ("\u3000", "visible character"),
    ("ali\u200bce", "invisible formatting"), ("\u202eecila", "invisible formatting"),
    ("\u2066x\u2069", "invisible formatting"), ("ali\tce", "control character"),
    ("a\u2028b", "line separator"), ("\u3164", "invisible character"), ("\u2800", "invisible character"),
    ("a\u0301\u0300\u0302\u0303", "combining marks"), ("\ue000", "private-use"), ("\U000e0041", "invisible formatting"),
])
def test_invisible_and_control_characters_are_refused_with_a_reason(name, why):
    with pytest.raises(ProtocolError) as info:
        clean_name(name)
    assert info.value.code is ErrorCode.BAD_NAME and why in info.value.message and info.value.field == "name"


def test_a_name_too_long_once_normalised_is_refused():
    with pytest.raises(ProtocolError) as info:
        clean_name("\ufdfa" * 2)          # one character each, 18 once NFKC spells them out
    assert info.value.code is ErrorCode.BAD_NAME and "at most 32" in info.value.message


@pytest.mark.parametrize("like", ["alice", "ALICE", "alice ", "\u0430lice", "Ａｌｉｃｅ", "Alíce", "AIice",
                                  "A1ice", "Al ice", "\u0391lice"])
def test_look_alikes_share_a_skeleton(like):
    assert skeleton(like) == skeleton("Alice")


@pytest.mark.parametrize("other", ["Alicia", "Bob", "Malice", "Al"])
def test_different_names_do_not(other):
    assert skeleton(other) != skeleton("Alice")
