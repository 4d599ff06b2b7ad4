"""The full-text columns' single hanzi: found by one pattern, the same characters as the per-character rule."""

from __future__ import annotations

from mnemir.store import segment


def test_the_hanzi_pattern_is_the_per_character_rule() -> None:
    borders = [0x3400, 0x4DBF, 0x4E00, 0x9FFF, 0xF900, 0xFAFF, 0x20000, 0x2EBEF]
    points = {c + d for c in borders for d in (-1, 0, 1)} | set(range(0x2000, 0xFB00, 7)) | {0x10FFFF, 0x61, 0x41}
    for code in sorted(points):
        ch = chr(code)
        assert bool(segment._HANZI.fullmatch(ch)) == segment._is_hanzi(ch), hex(code)


def test_index_columns_keep_the_single_hanzi_of_longer_words() -> None:
    words, extra, hanzi = segment.index_columns(["我对猫毛过敏 at the café"], ["上海"])
    assert "过敏" in words.split() and extra == "上海"
    expected = [ch for w in (*words.split(), *extra.split()) if len(w) > 1 for ch in w if segment._is_hanzi(ch)]
    assert hanzi.split() == expected == ["过", "敏", "上", "海"]
