import pytest

from mnemir.understand.entities import aliases, display_name, find_entities, normalize_entity


@pytest.mark.parametrize(("name", "key"), [
    ("上海", "shanghai"), ("Shanghai", "shanghai"), ("沪", "shanghai"), (" shanghai ", "shanghai"),
    ("花生", "peanut"), ("peanuts", "peanut"), ("川菜", "sichuan food"), ("Unknown Place", "unknown place"),
])
def test_names_normalise_to_one_key(name: str, key: str) -> None:
    assert normalize_entity(name) == key


def test_aliases_cover_both_languages() -> None:
    names = aliases("上海")
    assert names[0] == "shanghai"
    assert "上海" in names and "Shanghai" in names
    assert display_name("shanghai", "zh") == "上海"
    assert display_name("shanghai", "en") == "Shanghai"


@pytest.mark.parametrize(("text", "keys"), [
    ("帮我订下周五去上海的机票", ["shanghai", "flight"]),
    ("I moved to Hangzhou, not Shanghai", ["hangzhou", "shanghai"]),
    ("我对花生过敏，但特别喜欢吃川菜", ["peanut", "sichuan food"]),
    ("My colleague Priya lives in Seattle", ["priya", "seattle"]),
    ("la la la, apple pie", []),
])
def test_entities_found_in_text(text: str, keys: list[str]) -> None:
    assert [e.key for e in find_entities(text)] == keys
