"""Entity normalisation with Chinese/English aliases.

An entity's *key* is one canonical lowercase name ("shanghai"), whatever the
user wrote ("上海", "Shanghai", "沪"). Keys are what write-time
``related_to_entity`` links and query intents compare, so that a memory about
"上海" and a question about "Shanghai" meet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Entity", "aliases", "display_name", "find_entities", "normalize_entity"]

# key: (aliases...) - the first zh alias is the display name in Chinese text
_GAZETTEER: dict[str, tuple[str, ...]] = {
    # places
    "shanghai": ("上海", "沪", "Shanghai"),
    "beijing": ("北京", "Beijing", "Peking"),
    "hangzhou": ("杭州", "Hangzhou"),
    "shenzhen": ("深圳", "Shenzhen"),
    "guangzhou": ("广州", "Guangzhou", "Canton"),
    "chengdu": ("成都", "Chengdu"),
    "chongqing": ("重庆", "Chongqing"),
    "nanjing": ("南京", "Nanjing"),
    "wuhan": ("武汉", "Wuhan"),
    "xian": ("西安", "Xi'an", "Xian"),
    "suzhou": ("苏州", "Suzhou"),
    "tianjin": ("天津", "Tianjin"),
    "xiamen": ("厦门", "Xiamen"),
    "qingdao": ("青岛", "Qingdao"),
    "kunming": ("昆明", "Kunming"),
    "hong kong": ("香港", "Hong Kong", "HK"),
    "taipei": ("台北", "Taipei"),
    "tokyo": ("东京", "Tokyo"),
    "osaka": ("大阪", "Osaka"),
    "seoul": ("首尔", "Seoul"),
    "singapore": ("新加坡", "Singapore"),
    "new york": ("纽约", "New York", "NYC"),
    "london": ("伦敦", "London"),
    "paris": ("巴黎", "Paris"),
    "berlin": ("柏林", "Berlin"),
    "san francisco": ("旧金山", "San Francisco", "SF"),
    "seattle": ("西雅图", "Seattle"),
    "los angeles": ("洛杉矶", "Los Angeles", "LA"),
    "boston": ("波士顿", "Boston"),
    "sydney": ("悉尼", "Sydney"),
    "toronto": ("多伦多", "Toronto"),
    "china": ("中国", "China"),
    "japan": ("日本", "Japan"),
    "usa": ("美国", "USA", "the US", "America", "United States"),
    "uk": ("英国", "UK", "Britain", "England"),
    "germany": ("德国", "Germany"),
    "france": ("法国", "France"),
    "thailand": ("泰国", "Thailand"),
    # food and drink
    "coffee": ("咖啡", "coffee"),
    "black coffee": ("黑咖啡", "black coffee"),
    "latte": ("拿铁", "latte"),
    "tea": ("茶", "tea"),
    "green tea": ("绿茶", "green tea"),
    "milk tea": ("奶茶", "milk tea", "bubble tea"),
    "peanut": ("花生", "peanut", "peanuts"),
    "seafood": ("海鲜", "seafood", "shellfish"),
    "shrimp": ("虾", "shrimp", "prawns"),
    "milk": ("牛奶", "milk", "dairy"),
    "cilantro": ("香菜", "cilantro", "coriander"),
    "sichuan food": ("川菜", "Sichuan food", "Sichuan cuisine", "Szechuan food"),
    "hotpot": ("火锅", "hotpot", "hot pot"),
    "sushi": ("寿司", "sushi"),
    "spicy food": ("辣", "spicy food", "spicy"),
    "chocolate": ("巧克力", "chocolate"),
    "beer": ("啤酒", "beer"),
    "wine": ("红酒", "葡萄酒", "wine"),
    "pizza": ("披萨", "pizza"),
    "noodles": ("面条", "noodles"),
    "dumplings": ("饺子", "dumplings"),
    "penicillin": ("青霉素", "penicillin"),
    "pollen": ("花粉", "pollen"),
    # things people ask agents about
    "flight": ("机票", "航班", "flight", "plane ticket"),
    "hotel": ("酒店", "hotel"),
    "train ticket": ("火车票", "高铁票", "train ticket"),
    "expense report": ("报销单", "报销", "expense report", "expenses", "reimbursement"),
    "report": ("报告", "report"),
    "refund": ("退款", "refund"),
    "meeting": ("会议", "meeting"),
    "weather": ("天气", "weather"),
    "cat": ("猫", "cat"),
    "dog": ("狗", "dog"),
    "python": ("Python",),
    "rust": ("Rust",),
    # organisations
    "alibaba": ("阿里巴巴", "阿里", "Alibaba"),
    "tencent": ("腾讯", "Tencent"),
    "bytedance": ("字节跳动", "字节", "ByteDance"),
    "huawei": ("华为", "Huawei"),
    "google": ("谷歌", "Google"),
    "microsoft": ("微软", "Microsoft"),
    "apple": ("苹果公司", "Apple"),
    "amazon": ("亚马逊", "Amazon"),
}

_ALIAS_TO_KEY: dict[str, str] = {}
for _key, _names in _GAZETTEER.items():
    _ALIAS_TO_KEY[_key] = _key
    for _name in _names:
        _ALIAS_TO_KEY.setdefault(_name.lower(), _key)

_CJK = re.compile(r"[\u4e00-\u9fff]")
_ZH_ALIASES = sorted((a for a in _ALIAS_TO_KEY if _CJK.search(a)), key=len, reverse=True)
_EN_ALIASES = sorted((a for a in _ALIAS_TO_KEY if not _CJK.search(a)), key=len, reverse=True)
_ZH_PATTERN = re.compile("|".join(map(re.escape, _ZH_ALIASES)))
_EN_PATTERN = re.compile(r"\b(?:" + "|".join(map(re.escape, _EN_ALIASES)) + r")\b", re.I)
# short aliases that are also common words: only taken when written with the capitals shown
_CASE_SENSITIVE = {"sf", "la", "hk", "apple", "python", "rust", "china", "the us"}
# single characters that are too ambiguous inside Chinese words
_ZH_SINGLE_OK = {"茶", "猫", "狗", "虾"}


@dataclass(frozen=True)
class Entity:
    """An entity mentioned in text: its canonical key and the words used."""

    key: str
    surface: str
    start: int
    end: int


def normalize_entity(name: str) -> str:
    """The canonical key of ``name`` ("上海" / "Shanghai" -> "shanghai"); unknown names are cleaned and lowercased."""
    cleaned = re.sub(r"\s+", " ", name.strip().strip("\"'“”‘’「」《》.,，。!?！？")).lower()
    return _ALIAS_TO_KEY.get(cleaned, cleaned)


def aliases(name: str) -> tuple[str, ...]:
    """All known names of an entity (the key first), e.g. ("shanghai", "上海", "沪", "Shanghai")."""
    key = normalize_entity(name)
    return (key, *[a for a in _GAZETTEER.get(key, ()) if a != key])


def display_name(key: str, language: str) -> str:
    """How to write an entity key in ``language`` ("zh" or "en")."""
    names = _GAZETTEER.get(key, ())
    for name in names:
        if bool(_CJK.search(name)) == (language == "zh"):
            return name
    return key


def find_entities(text: str) -> list[Entity]:
    """Known entities in ``text`` (longest match wins), plus capitalised English names not at a sentence start."""
    found: list[Entity] = []
    taken: list[tuple[int, int]] = []

    def add(key: str, surface: str, start: int, end: int) -> None:
        if any(start < e and s < end for s, e in taken):
            return
        taken.append((start, end))
        found.append(Entity(key, surface, start, end))

    for m in _ZH_PATTERN.finditer(text):
        if len(m.group(0)) == 1 and m.group(0) not in _ZH_SINGLE_OK:
            continue
        add(_ALIAS_TO_KEY[m.group(0).lower()], m.group(0), m.start(), m.end())
    for m in _EN_PATTERN.finditer(text):
        surface = m.group(0)
        if surface.lower() in _CASE_SENSITIVE and not surface[0].isupper():
            continue
        add(_ALIAS_TO_KEY[surface.lower()], surface, m.start(), m.end())
    for m in re.finditer(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)\b", text):
        word = m.group(1)
        if word in _CAPITALISED_STOPWORDS or m.start() == 0:
            continue
        add(normalize_entity(word), word, m.start(), m.end())
    found.sort(key=lambda e: e.start)
    return found


_CAPITALISED_STOPWORDS = {
    "I", "I'm", "I've", "I'll", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December", "OK", "Ok", "Please", "Thanks", "Hi", "Hey", "Hello", "Also", "But", "And", "Actually",
    "Oh", "Yes", "No", "Sorry", "Dr", "Mr", "Mrs", "Ms",
}
