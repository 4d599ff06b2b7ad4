"""Property filling: precise rules that turn a typed piece of an utterance into properties.

The classifier decides *which* type a piece of text is; these rules decide
*what it says*: a task's status, deadline and priority, a fact's
entity/attribute/value, a preference's subject, polarity and strength, an
emotion's type, intensity and trigger, a frame's type and topic, an update's
new status. Each function is pure: (text, now) -> properties.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from mnemir.understand.dates import resolve_deadline
from mnemir.understand.entities import find_entities
from mnemir.understand.lexicon import CUES, INTENSIFIERS, SOFTENERS, find_emotion

__all__ = ["GROUPS", "RELATIONS", "Mention", "about_whom", "group_mention", "person_mention", "act_type", "decision_of", "fact_attribute", "hypothesis_properties",
           "relation_key", "postponed_to", "POSTPONE", "CONDITIONAL", "fact_properties", "fact_provenance", "frame_properties", "emotion_properties",
           "preference_properties", "task_properties", "update_status", "correction_of", "strip_request"]

_TRAIL = "，,。.!！?？~～;；:： \t\n\"'“”了的啊呀呢吧哦嘛"


def _clean(value: str | None, limit: int = 120) -> str | None:
    if value is None:
        return None
    value = value.strip().strip(_TRAIL).strip()
    value = re.sub(r"^(?:(?:the|a|an|my)\s+|是|在|到)", "", value, flags=re.I).strip()
    return value[:limit] or None


# -- facts --------------------------------------------------------------------------
#: attribute -> patterns with a named group ``v`` for the value (first match wins); shared with intent
_FACT_RULES: list[tuple[str, str]] = [
    ("allergy", r"对(?P<v>[^，,。]{1,15}?)过敏|(?P<v2>[^，,。我]{1,10}?)过敏|allergic to (?P<v3>[\w\s'-]{1,40}?)(?:[,.;!]|$| and| but)"),
    ("residence", r"(?:住在|住|搬到了?|搬去了?|定居在?)(?P<v>[^，,。]{1,20})|(?:live|living|moved|relocated|"
                  r"based|reside)\s+(?:in|to|at|out of)\s+(?P<v2>[\w\s'-]{1,40}?)(?:[,.;!]|$| now| and| but| since)"),
    ("hometown", r"老家(?:是|在)?(?P<v>[^，,。]{1,15})|我是(?P<v2>[^，,。]{1,8})人|来自(?P<v3>[^，,。]{1,15})|"
                 r"(?:i'?m from|i come from|grew up in|was born in|hometown is)\s+(?P<v4>[\w\s'-]{1,40}?)(?:[,.;!]|$| and| but)"),
    ("name", r"我叫(?P<v>[^，,。]{1,12})|名字(?:是|叫)(?P<v2>[^，,。]{1,12})|(?:my name is|call me|i'?m called)\s+"
             r"(?P<v3>[\w\s'-]{1,30}?)(?:[,.;!]|$| and| but)"),
    ("age", r"(?P<v>[\d一二三四五六七八九十]{1,3})岁|(?P<v2>\d{1,3})\s*(?:years old|yo\b)|i'?m (?P<v3>\d{1,2})\b(?! ?(?:am|pm|%))"),
    ("birthday", r"生日(?:是|在)?(?P<v>[^，,。]{1,15})|birthday (?:is|falls on)\s+(?P<v2>[\w\s'-]{1,30}?)(?:[,.;!]|$)"),
    ("employer", r"在(?P<v>[^，,。]{1,15}?)(?:工作|上班|任职|实习)|(?:work|working|intern)\s+(?:at|for)\s+"
                 r"(?P<v2>[\w\s&'-]{1,40}?)(?:[,.;!]|$| as| and| but| now| since)"),
    ("occupation", r"我是(?:一名|一个|个)?(?P<v>[^，,。]{0,12}?(?:师|员|生|家|经理|主管|总监|老板|医生|护士|律师|会计|作者|记者|医|工|警|官|手|匠))|"
                   r"(?:i'?m|i am|i work as)\s+an?\s+(?P<v2>[\w\s-]{2,40}?)(?:[,.;!]|$| at| for| and| but| in)|"
                   r"做(?P<v3>[^，,。]{1,10})(?:工作|的)|当(?P<v4>[^，,。]{1,8})"),
    ("pet", r"(?:养了?|有)(?:一只|只|两只|一条|条)?(?P<v>猫|狗|猫咪|狗狗|兔子|鹦鹉|仓鼠|金鱼)|(?:have|got|own)\s+an?\s+"
            r"(?P<v2>(?:\w+\s)?(?:cat|dog|puppy|kitten|rabbit|parrot|hamster))"),
    ("family", r"(?P<v>(?:我|my\s)(?:女儿|儿子|老婆|老公|妻子|丈夫|妈妈|爸爸|孩子|哥哥|姐姐|弟弟|妹妹|wife|husband|son|daughter|"
               r"kids?|mom|dad|mother|father|brother|sister|partner)[^，,。.]{0,30})"),
    ("diet", r"(?P<v>吃素|素食|不吃肉|不吃猪肉|清真|戒糖|生酮|vegetarian|vegan|don'?t eat (?:meat|pork|beef)|halal|kosher|"
             r"gluten[- ]free|keto|lactose intolerant)"),
    ("health", r"(?P<v>血压|糖尿病|哮喘|怀孕|高血压|胃病|失眠|近视|diabetes|diabetic|asthma|pregnant|blood pressure|"
               r"insomnia|migraine|a bad back|knee injury)"),
    ("weather", r"(?P<v>天气|下雨|下雪|晴|阴天|气温|温度|度|台风|雾霾|weather|rain(?:ing|y)?|snow(?:ing)?|sunny|cloudy|degrees|"
                r"forecast|humid|typhoon)"),
    ("contact", r"(?P<v>电话|手机号?|邮箱|微信|email|phone(?: number)?|address)[^，,。]{0,40}"),
    ("education", r"(?P<v>毕业于?[^，,。]{0,20}|在读|读研|读博|大学|学校|graduated[^,.]{0,40}|university|college|studying "
                  r"[^,.]{0,30}|phd|master'?s)"),
    ("vehicle", r"(?:开|drive|driving)\s*(?:a|an|一辆|辆)?\s*(?P<v>[^，,。.]{2,25})"),
    ("language", r"(?:会说|会讲|母语是|speak|speaks|native language is)\s*(?P<v>[^，,。.]{1,20})"),
    ("schedule", r"(?P<v>每天|每周|每个?月|工作日|周末|every (?:day|morning|week|monday|tuesday|wednesday|thursday|"
                 r"friday|weekend)|on weekdays)[^，,。.]{0,30}"),
]
_FACT_COMPILED = [(a, re.compile(p, re.I)) for a, p in _FACT_RULES]
#: attributes that are about the user when said in the first person; not weather (about a place) nor family
#: (about the user's relative, but stored under the user whatever the wording)
_SELF_ATTRS = frozenset(a for a, _ in _FACT_RULES) - {"weather", "family"}


def _first_group(m: re.Match[str]) -> str | None:
    for value in m.groupdict().values():
        if value:
            return value
    return None


def _captured(pattern: re.Pattern[str], text: str) -> str | None:
    """The cleaned value the first match of ``pattern`` captured (its first non-empty named group), if any."""
    m = pattern.search(text)
    return _clean(_first_group(m)) if m else None


def fact_provenance(speaker: str) -> dict[str, object]:
    """A fact's ``source`` and ``confidence`` by the speaker who said it: the user about their own life is trusted
    more than the assistant's restatement or system/tool text (``external``)."""
    source = {"user": "user", "assistant": "assistant"}.get(speaker, "external")
    return {"source": source, "confidence": 0.8 if source == "user" else 0.6}


def fact_attribute(text: str) -> tuple[str, str | None]:
    """(attribute, value) for a fact-like text; ("general", None) when no rule applies."""
    for attribute, pattern in _FACT_COMPILED:
        m = pattern.search(text)
        if m:
            return attribute, _clean(_first_group(m))
    return "general", None


# -- who a fact is about ------------------------------------------------------------
#: people a fact can be about besides the user: general relation and role words (zh + en) -> one key per relation,
#: and the animals people keep (a pet is talked about like a person). Chinese tells older from younger siblings,
#: English does not, so those keep apart.
RELATIONS: dict[str, tuple[str, ...]] = {
    "mother": ("妈妈", "母亲", "老妈", "妈", "mom", "mum", "mother", "mama", "mummy", "mommy"),
    "father": ("爸爸", "父亲", "老爸", "爸", "dad", "father", "papa", "daddy"),
    "stepmother": ("继母", "后妈", "stepmother", "stepmom", "stepmum"),
    "stepfather": ("继父", "后爸", "stepfather", "stepdad"),
    "parents": ("爸妈", "父母", "parents", "folks"),
    "wife": ("老婆", "妻子", "太太", "媳妇", "wife"),
    "husband": ("老公", "丈夫", "先生", "husband"),
    "partner": ("对象", "伴侣", "爱人", "partner", "spouse", "fiancé", "fiancée", "fiance", "fiancee"),
    "girlfriend": ("女朋友", "女友", "girlfriend"),
    "boyfriend": ("男朋友", "男友", "boyfriend"),
    "son": ("儿子", "son"),
    "daughter": ("女儿", "闺女", "daughter"),
    "kids": ("孩子", "小孩", "娃", "kids", "kid", "children", "child"),
    "older sister": ("姐姐", "姐"),
    "younger sister": ("妹妹", "妹"),
    "older brother": ("哥哥", "哥"),
    "younger brother": ("弟弟", "弟"),
    "sister": ("sister", "sis"),
    "brother": ("brother", "bro"),
    "sister-in-law": ("嫂子", "弟媳", "小姑子", "小姨子", "sister-in-law"),
    "brother-in-law": ("姐夫", "妹夫", "小舅子", "大伯子", "brother-in-law"),
    "son-in-law": ("女婿", "son-in-law"),
    "daughter-in-law": ("儿媳", "儿媳妇", "daughter-in-law"),
    "grandmother": ("奶奶", "外婆", "姥姥", "grandma", "grandmother", "granny", "gran", "nan", "nana"),
    "grandfather": ("爷爷", "外公", "姥爷", "grandpa", "grandfather", "grandad", "granddad"),
    "uncle": ("叔叔", "舅舅", "伯伯", "姑父", "姨父", "舅", "叔", "伯", "uncle"),
    "aunt": ("阿姨", "姑姑", "姨妈", "舅妈", "婶婶", "小姨", "姨", "姑", "aunt", "auntie"),
    "cousin": ("表哥", "表姐", "表弟", "表妹", "堂哥", "堂姐", "堂弟", "堂妹", "cousin"),
    "nephew": ("侄子", "外甥", "nephew"),
    "niece": ("侄女", "外甥女", "niece"),
    "mother-in-law": ("岳母", "婆婆", "丈母娘", "mother-in-law"),
    "father-in-law": ("岳父", "公公", "老丈人", "father-in-law"),
    "friend": ("朋友", "好朋友", "闺蜜", "哥们", "哥们儿", "发小", "friend", "best friend", "buddy", "mate"),
    "roommate": ("室友", "舍友", "roommate", "flatmate", "housemate"),
    "neighbour": ("邻居", "neighbour", "neighbor", "neighbours", "neighbors"),
    "colleague": ("同事", "colleague", "coworker", "co-worker", "teammate"),
    "boss": ("老板", "领导", "上司", "主管", "经理", "组长", "主任", "总监", "boss", "manager", "supervisor",
             "team lead", "head of department"),
    "intern": ("实习生", "intern"),
    "nanny": ("保姆", "nanny", "childminder", "babysitter"),
    "tenant": ("租客", "房客", "tenant", "lodger"),
    "guard": ("保安", "门卫", "security guard", "doorman", "concierge"),
    "landlord": ("房东", "landlord", "landlady"),
    "teacher": ("老师", "班主任", "teacher", "tutor", "coach"),
    "doctor": ("医生", "大夫", "doctor", "dentist", "gp"),
    "classmate": ("同学", "classmate"),
    "client": ("客户", "client", "customer"),
    "dog": ("狗", "狗狗", "dog", "puppy"),
    "cat": ("猫", "猫咪", "cat", "kitten"),
    "parrot": ("鹦鹉", "parrot", "budgie"),
    "rabbit": ("兔子", "rabbit", "bunny"),
    "hamster": ("仓鼠", "hamster"),
}
_RELATION_OF = {alias.lower(): key for key, names in RELATIONS.items() for alias in names}
_CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")
#: relation words written on their own (without "我的") only when they cannot be part of another word: two
#: characters or more ("女儿…", "同事小唐…"), never one ("姐", "妈")
_ZH_REL = "|".join(sorted((a for a in _RELATION_OF if _CJK_CHAR.search(a)), key=len, reverse=True))
_ZH_REL_BARE = "|".join(sorted((a for a in _RELATION_OF if _CJK_CHAR.search(a) and len(a) > 1), key=len, reverse=True))
_EN_REL = "|".join(sorted((re.escape(a) for a in _RELATION_OF if not _CJK_CHAR.search(a)), key=len, reverse=True))
#: English kinship words that are used like names at the head of a sentence ("Grandma turns ninety", "Dad's 70")
_EN_KIN_AS_NAME = "|".join(sorted((re.escape(a) for key in ("mother", "father", "grandmother", "grandfather", "wife",
                                                            "husband", "uncle", "aunt", "stepmother", "stepfather")
                                   for a in RELATIONS[key] if not _CJK_CHAR.search(a)), key=len, reverse=True))
_ZH_LEAD = r"(?:[，,\s]*(?:其实|不对|对了|另外|还有|而且|但是|不过|纠正一下|说起来|嗯|唉|哎|对|哦)[，,\s]*)*"
#: whose: "我", "我们", "我家", "我们家那只", "我们小区的", "家里", "楼下的"
_ZH_OWNER = (r"(?:(?:我们|咱们|我|咱)(?:家|这边|公司|部门|单位|组|团队|小区|学校|班|楼)?(?:那只|这只|那个|这个|那位|这位)?的?|"
             r"家里的?)")
#: the common Chinese surnames (a general fact of the language: about a hundred cover most people)
_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪"
             "范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁"
             "岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时"
             "穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘"
             "池查麻苑迟邝")
#: a Chinese personal name after a relation word or at the head of a clause: 小唐 / 老邱 / 阿伟, 李总 / 赵阿姨, a
#: surname and a given name ("韩磊", "孙倩") or a doubled name ("乐乐")
_ZH_NAME = (rf"(?:(?:小|老|阿)[\u4e00-\u9fff](?![\u4e00-\u9fff]?(?:了|过))|[{_SURNAMES}](?:老师|医生|总|经理|阿姨|叔叔|大爷|"
            rf"大妈|师傅|姐|哥)|(?:[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}?|(?P<dup>[\u4e00-\u9fff])(?P=dup))"
            r"(?=是|在|去|今|明|昨|前|上|下|刚|最近|这|也|都|又|还|已|要|想|会|不|没|每|负责|经常|一直|"
            r"开始|调|搬|住|做|当|有|从|被|把|给|让|对|跟|和|说))")
#: "我姐姐…", "我们组长老邱…", "同事小唐…", "楼上的赵阿姨…", "我们科室新来的主任叫孙倩…", "我家橘猫…"
_ZH_ABOUT = re.compile(
    rf"^{_ZH_LEAD}(?:(?P<near>楼下|楼上|隔壁|对门)的?(?:邻居)?|{_ZH_OWNER}(?:[\u4e00-\u9fff]{{1,5}}的)?"
    rf"(?:[大二三四五六七八九小]|(?:橘|黑|白|花|黄|灰|狸花|布偶|土|小|大|老)(?=[猫狗]))?(?P<rel>{_ZH_REL})|"
    rf"(?P<bare>{_ZH_REL_BARE}))(?!们|子(?!$)|家|里|边|说(?!过)|聚会|会|群|圈|关系)"
    rf"(?:叫(?P<called>[\u4e00-\u9fff]{{2,3}}?)(?=[，,。！!；;]|$|是|今)|[，,]?(?P<name>{_ZH_NAME}))?")
#: a name at the head of a clause: "老邓跟我说…", "老邓是我高中同桌", "小蔡对芒果过敏"; not one said to someone, set off
#: before the second person ("小琪，你…", "老邓，跟你说…": a vocative names whom the sentence is said to)
_ZH_NAMED = re.compile(rf"^{_ZH_LEAD}(?P<name>(?:小|老|阿)[\u4e00-\u9fff]|[{_SURNAMES}](?:老师|医生|总|经理|阿姨|叔叔))"
                       r"(?=是|在|有|住|的|说|跟|和|对|告诉|刚|去|要|想|喜欢|不|没|已经|下|上|这|最近|今|明|昨|也|还|又|一直|"
                       r"经常|每|，|,)(?![，,]\s*(?:你|您|咱|谢|麻烦|帮我|我跟你|跟你|告诉你))")
_EN_LEAD = r"^(?:(?:oh|so|ok|okay|well|actually|also|and|but|sorry|btw|fyi|pls|please|remember|by the way),?\s+)*"
#: one describing word before the relation word ("my older brother", "my line manager", "our new neighbours")
_EN_MODS = r"(?:[a-z]+\s+)?"
#: "my sister…", "my older brother…", "my friend Alex…", "our landlord…", "the neighbours…", "Uncle Bert…"
_EN_ABOUT = re.compile(
    rf"{_EN_LEAD}(?:(?:my|our|the)\s+{_EN_MODS}(?P<rel>{_EN_REL})|(?-i:(?P<kin>(?i:{_EN_KIN_AS_NAME})))(?=\b))"
    rf"(?![\w-])(?:'s)?(?:,?\s+(?-i:(?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+)?(?P<name>[A-Z][a-z]+))\b)?", re.I)
#: a named person as the subject, maybe with an apposition: "Alex is…", "Tom's…", "Omar, my line manager, is…",
#: "Zoe from the book club…", "Mrs Patel next door…"
_EN_NAMED = re.compile(
    rf"{_EN_LEAD}(?-i:(?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+)?(?P<name>[A-Z][a-z]+))(?:'s\b)?"
    rf"(?:,\s+(?:that'?s\s+|who'?s\s+|she'?s\s+|he'?s\s+)?(?:my|our)\s+{_EN_MODS}(?P<rel>{_EN_REL})\s*,"
    rf"|\s+(?P<near>next door|from (?:the\s+)?[a-z][\w\s-]{{1,25}}?(?=\s+(?:is|was|has|just|goes|got)\b)))?"
    r"\s+(?:is|was|are|has|had|have|lives|works|moved|got|gets|just|will|said|says|told|tells|wants|likes|loves|hates|"
    r"can'?t|doesn'?t|isn'?t|wasn'?t|started|starts|left|leaves|runs|teaches|studies|plays|prefers|owns|drives|"
    r"bought|sold|needs|turns|turned|won|lost|goes|went|finishes|finished|keeps|knows|used|speaks|approves|"
    r"qualified|passed|been|made|became|becomes|does|did|lent|gave|takes|took|came|comes|never|always|still|"
    r"also|only|really|might|may|must|should|would|could|allergic|doing|going|getting|having|staying|leaving|"
    r"moving|working|living|starting|coming|being|a|an|the|not|on|in|at|off|back|away|home|pregnant|sick|ill)\b")
_NEAR = {"楼下": "neighbour", "楼上": "neighbour", "隔壁": "neighbour", "对门": "neighbour", "next door": "neighbour"}
_NOT_NAMES = frozenset({"i", "the", "my", "we", "it", "this", "that", "there", "our", "he", "she", "they", "you",
                        "today", "tomorrow", "yesterday", "monday", "tuesday", "wednesday", "thursday", "friday",
                        "saturday", "sunday", "everything", "nothing", "everyone", "finally", "what", "who", "here",
                        "ok", "okay", "yes", "no", "thanks", "sorry", "please", "just", "also", "actually", "so",
                        "well", "and", "but", "oh", "hi", "hey", "hello", "decided", "new", "next", "last", "one",
                        "all", "both", "some", "any", "each", "every", "maybe", "probably", "perhaps", "still",
                        "then", "now", "mine", "his", "her", "their", "its", "your", "these", "those", "if", "when",
                        "while", "after", "before", "since", "because", "sure", "fine", "great", "good", "wow",
                        "physio", "wrong", "scratch", "note", "fyi", "btw", "dear", "tonight", "weekend", "morning"})


@dataclass(frozen=True)
class Mention:
    """Who a sentence is about, when it is not the user: ``key`` (a lower-case name or a relation key), the words
    used (``surface``), where the mention ends, and ``relation``: the relation key when the sentence names the same
    person both ways ("my brother Tom", "Omar, my line manager", "我们家那只黑猫叫煤球"), else None."""

    key: str
    surface: str
    end: int
    relation: str | None = None


#: reported speech whose own subject is the user ("the doctor said I…", "医生说我…"): the report is about the user
_REPORTED_ABOUT_ME = re.compile(r"[\s,，]*(?:(?:just|also|then)\s+)?(?:said|says|told me|tells me|thinks|reckons|"
                                r"(?:跟|和|对)?我?说|告诉我|觉得)[\s,，:：]*(?:that\s+)?(?:i\b|i'm\b|i've\b|my\b|我(?!们))",
                                re.I)


def person_mention(text: str) -> Mention | None:
    """The person (or pet) at the head of a sentence, when it is not the user (see :func:`_person_mention`); None
    for reported speech about the user ("the doctor said I need rest", "医生说我血压偏高")."""
    text = text.strip()
    found = _person_mention(text)
    if found is not None and _REPORTED_ABOUT_ME.match(text, found.end):
        return None
    return found


#: groups the user belongs to, said with "我们 / our": a fact about them is about the group, not the user alone
GROUPS: dict[str, tuple[str, ...]] = {
    "team": ("小组", "团队", "部门", "组", "team", "department", "squad"),
    "company": ("公司", "单位", "company", "firm"),
    "project": ("项目", "project"),
    "family": ("一家人", "一家", "全家", "family", "whole family", "household"),
}
_GROUP_OF = {alias: key for key, names in GROUPS.items() for alias in names}
_GROUP = re.compile(
    rf"^{_ZH_LEAD}(?:我们|咱们|我)(?:这个|那个|的)?(?P<zh>{'|'.join(a for a in _GROUP_OF if _CJK_CHAR.search(a))})"
    rf"(?!长|里|人(?!$)|门口|附近|旁边|楼下|对面|[\u4e00-\u9fff]?(?:的)?(?:同事|领导|老板|经理|主管|主任|组长|实习生|保安|"
    rf"同学|新来))|{_EN_LEAD}(?:our|my)\s+(?:whole\s+|new\s+|little\s+)?"
    rf"(?P<en>{'|'.join(a for a in _GROUP_OF if not _CJK_CHAR.search(a))})\b(?!'s\s+(?:new\s+)?\w+\s+(?:is|was))",
    re.I)


def group_mention(text: str) -> Mention | None:
    """A group of the user's as the subject ("我们组…", "our team moved…", "我们一家都…"), else None."""
    m = _GROUP.search(text.strip())
    if m is None:
        return None
    word = m.group("zh") or m.group("en")
    return Mention(_GROUP_OF[word.lower()], word, m.end(), None)


def _person_mention(text: str) -> Mention | None:
    """The person (or pet) at the head of a sentence, when it is not the user: a relation or role of the user,
    maybe followed or preceded by a name ("我姐姐", "同事小唐", "my uncle", "my friend Alex", "Omar, my line manager"), a
    named person ("Alex is…", "老邓跟我说…": reported speech is about the one who reports), or one named with 叫
    ("我们家那只黑猫叫煤球": the name wins, the relation is kept)."""
    m = _ZH_ABOUT.search(text)
    if m:
        rel = m.group("rel") or m.group("bare")
        relation = _NEAR[m.group("near")] if m.group("near") else _RELATION_OF[rel]
        if m.group("near") and rel is None and m.group("name") is None:  # "隔壁是…": the neighbours
            return Mention(relation, m.group(0), m.end(), None)
        name = m.group("name") or m.group("called")
        if name:
            return Mention(name.lower(), name, m.end("name") if m.group("name") else m.end("called"), relation)
        return Mention(relation, rel or m.group("near"), m.end(), None)
    m = _EN_ABOUT.search(text)
    if m:
        rel = m.group("rel") or m.group("kin")
        relation = _RELATION_OF[rel.lower()]
        name = m.group("name")
        if name and name.lower() not in _NOT_NAMES and not _RELATION_OF.get(name.lower()):
            return Mention(name.lower(), name, m.end(), relation)
        return Mention(relation, rel, m.end("rel") if m.group("rel") else m.end("kin"), None)
    m = _EN_NAMED.search(text)
    if m and m.group("name").lower() not in _NOT_NAMES and m.group("name").lower() not in _RELATION_OF:
        near = m.group("near")
        given: str | None = _RELATION_OF[m.group("rel").lower()] if m.group("rel") else _NEAR.get(near or "")
        return Mention(m.group("name").lower(), m.group("name"), m.end("near") if near else
                       (m.end("rel") + 1 if m.group("rel") else m.end("name")), given)
    m = _ZH_NAMED.search(text)
    if m:
        return Mention(m.group("name").lower(), m.group("name"), m.end("name"), None)
    return None


#: a sentence whose subject is a third-person pronoun ("She works nights", "他下个月结婚"): it is about the person
#: last named, when the pronoun's gender allows (general facts of each language)
_PRONOUN_SUBJECT = re.compile(r"^\s*(?:(?:and|but|so|also|oh|well|then|now)[\s,]+)*(?:(?P<he>he|his|him)|(?P<she>she|her))\b|"
                              r"^\s*(?:而且|不过|但是|另外|还有|然后|所以)?[，,]?\s*(?:(?P<zhe>他)|(?P<zshe>她))(?![们])", re.I)
#: relation keys said of a man / of a woman (the rest: either)
MALE_RELATIONS = frozenset({"father", "stepfather", "husband", "boyfriend", "son", "older brother", "younger brother",
                            "brother", "brother-in-law", "son-in-law", "grandfather", "uncle", "nephew",
                            "father-in-law"})
FEMALE_RELATIONS = frozenset({"mother", "stepmother", "wife", "girlfriend", "daughter", "older sister",
                              "younger sister", "sister", "sister-in-law", "daughter-in-law", "grandmother", "aunt",
                              "niece", "mother-in-law", "nanny"})
_PLURAL_RELATIONS = frozenset({"parents", "kids"})
#: clauses of an utterance, where a person may be named at the head of one
_CLAUSES = re.compile(r"(?<=[。！？!?；;，,])\s*|(?<=[.])\s+")


def pronoun_subject(text: str) -> str | None:
    """"male" / "female" when the sentence's subject is a third-person pronoun ("She works nights", "他下个月
    结婚"), else None."""
    m = _PRONOUN_SUBJECT.match(text)
    if m is None:
        return None
    return "male" if (m.group("he") or m.group("zhe")) else "female"


def last_person(text: str, gender: str | None = None) -> Mention | None:
    """The person named last at the head of a clause of ``text`` whose gender, as far as the relation word tells,
    agrees with ``gender`` ("male" / "female"; a name alone tells none), else None."""
    found = None
    for clause in _CLAUSES.split(text):
        m = person_mention(clause) if clause.strip() else None
        if m is None or m.key in _PLURAL_RELATIONS:  # "my parents": "they", not "he" or "she"
            continue
        relation = m.relation or (m.key if m.key in RELATIONS else None)
        if (gender == "male" and relation in FEMALE_RELATIONS) or (gender == "female" and relation in MALE_RELATIONS):
            continue
        found = m
    return found


def about_whom(text: str) -> tuple[str, str, int] | None:
    """(entity key, surface, end of the mention) of the person a sentence is about when it is not the user (see
    :func:`person_mention`; a name wins over the relation it is given with)."""
    m = person_mention(text)
    return None if m is None else (m.key, m.surface, m.end)


def relation_key(word: str) -> str | None:
    """The relation key of a relation word ("姐姐" -> "older sister", "Mum" -> "mother"), else None."""
    return _RELATION_OF.get(word.strip().lower())


def _as_first_person(rest: str) -> str:
    """The rest of a sentence about someone, said in the first person, so the user-fact rules read it: "是护士" ->
    "我是护士", " lives in Paris" -> "I live in Paris", " is my brother" -> "I am my brother"."""
    if re.search(r"[\u4e00-\u9fff]", rest[:3] or "x"):
        return "我" + rest.lstrip("的")
    rest = rest.strip()
    rest = re.sub(r"^(?:is|'s)\b", "am", rest, flags=re.I)
    rest = re.sub(r"^has\b", "have", rest, flags=re.I)
    if not re.match(r"^(?:was|am|has|does|is)\b", rest, re.I):
        rest = re.sub(r"^(\w+[^s])s\b", r"\1", rest)
    return "I " + rest


def fact_properties(text: str) -> dict[str, object]:
    """Entity, attribute and value of a fact; who said it (source, confidence) is the speaker policy's business
    (:func:`fact_provenance`, applied by ``extract.finalize``).

    The entity is who or what the fact is about: ``user`` for the user, a relation key ("older sister",
    "uncle") or a name ("alex") for someone else (:func:`person_mention`), a group of the user's ("team", "family":
    :func:`group_mention`), the place or thing otherwise; the attribute is read on the rest of the sentence, so it
    belongs to that subject. A decision ("we went with the blue
    sofa") is a Fact with attribute ``decision``, its entity the chosen option."""
    decision = decision_of(text)
    if decision is not None:
        return decision
    who = person_mention(text) or group_mention(text)
    if who is not None:
        attribute, value = fact_attribute(_as_first_person(text.strip()[who.end:]))
        if attribute == "family":
            attribute, value = "relation", _relation_value(value) or value
        return {"entity": who.key, "attribute": attribute, "value": value or _clean(text, 200) or text[:200]}
    attribute, value = fact_attribute(text)
    entities = find_entities(text)
    first_person = bool(CUES["first_person"].search(text))
    if attribute == "weather" and entities:
        entity = entities[0].key
        value = _clean(text)
    elif attribute == "family" or (attribute in _SELF_ATTRS and first_person):
        entity = "user"
    elif entities:
        entity = entities[0].key
    else:
        entity = "user" if first_person else _subject_guess(text)
    return {
        "entity": entity,
        "attribute": attribute,
        "value": value or _clean(text, 200) or text[:200],
    }


def _relation_value(value: str | None) -> str | None:
    """"my brother" / "我哥哥" -> the relation key; None when the value names no relation."""
    if not value:
        return None
    m = re.search(rf"(?:{_ZH_REL})|\b(?:{_EN_REL})\b", value, re.I)
    return _RELATION_OF[m.group(0).lower()] if m else None


_DECIDED = re.compile(r"选(?:的|定)?(?P<v0>[^，,。！!？?不没了好完]{1,8}?)了|(?:决定(?:了|要|先)?|定了|定下来(?:了)?|敲定(?:了)?|选了|就选|最后(?:还是|选了?|定了?|买了?|报了?|订了?|用)|"
                      r"最终(?:还是|选了?|定了?)?|还是)(?P<v>[^，,。！!？?]{1,30}?)(?:吧|了)?(?:[，,。！!]|$)|"
                      r"\b(?:decided (?:to|on)|went with|going with|go with|settled on|opted for|chose|picked|"
                      r"we'?ll take|i'?ll take|made up my mind(?: to| on)?)\s+(?P<v2>[^,.;!?]{1,60}?)(?:\s+in the end)?"
                      r"(?:[,.;!?]|$| after| because| since| instead| over| rather)", re.I)


def decision_of(text: str) -> dict[str, object] | None:
    """A decision's fact properties (attribute ``decision``, value and entity the chosen option), when the text
    states a choice with a decision marker; None otherwise."""
    if not CUES["decision"].search(text):
        return None
    m = _DECIDED.search(text)
    value = _clean(_first_group(m)) if m else None
    if not value:
        return None
    entity = re.sub(r"^(?:the|a|an|our|my|to)\s+", "", value.lower()).strip() or "user"
    return {"entity": entity[:80], "attribute": "decision", "value": value}


# -- hypotheses ---------------------------------------------------------------------------
_STRONG_HEDGE = re.compile(r"应该是|八成|估计|大概|肯定是|\b(?:probably|likely|i bet|most likely|pretty sure|i think)\b", re.I)
_WEAK_HEDGE = re.compile(r"也许|或许|说不定|没准|不一定|不确定|不知道是不是|\b(?:maybe|perhaps|possibly|might|not sure|could be|"
                         r"i wonder|no idea)\b", re.I)


_HEDGE_LEAD = re.compile(r"^(?:我(?:猜|估计|觉得|怀疑|想)|(?:可能|也许|或许|大概|估计|应该|好像|似乎|说不定|八成|恐怕)(?:是)?|"
                         r"(?:i (?:think|guess|suspect|reckon|bet|wonder if)|maybe|perhaps|probably|possibly|"
                         r"i'?m not sure(?: if| whether)?)[,\s]+)+", re.I)


def hypothesis_properties(text: str) -> dict[str, object]:
    """A hedged belief: the statement, how likely the wording makes it (0.65 "probably" / "应该是", 0.35 "maybe" /
    "也许", 0.5 otherwise) and, when the rules read one, what it is about."""
    if _WEAK_HEDGE.search(text):
        confidence = 0.35
    elif _STRONG_HEDGE.search(text):
        confidence = 0.65
    else:
        confidence = 0.5
    props = fact_properties(_HEDGE_LEAD.sub("", text) or text)
    out: dict[str, object] = {"statement": _clean(text, 300) or text[:300], "confidence": confidence,
                              "entity": props["entity"], "attribute": props["attribute"]}
    if props.get("value"):
        out["value"] = props["value"]
    return out


def _subject_guess(text: str) -> str:
    m = re.match(r"\s*(?:the\s+)?([\w\s'-]{1,30}?)\s+(?:is|are|was|has|opens|closes|costs)\b", text, re.I)
    if m:
        return m.group(1).strip().lower()
    m = re.match(r"\s*([^，,。是在有]{1,10})(?:是|在|有)", text)
    return m.group(1).strip() if m else "general"


_CORRECTION_OLD = re.compile(r"不是(?P<v>[^，,。而]{1,15})|(?:\bnot|\b(?:is|was|are|were)n'?t) (?:in |at |to |on )?"
                             r"(?P<v2>[£$€¥]?(?:[\w\s'-]|(?<=\d)[.,](?=\d)){1,30}?%?)(?:[,.;!](?!\d)|$| but| anymore)|"
                             r"\binstead of (?:the |on |in |at )?(?P<v3>(?:[\w\s'-]|(?<=\d)[.,](?=\d)){1,30}?)(?:[,.;!](?!\d)|$| but)",
                             re.I)
#: a correction that names the old value says it with a negation (or puts the new one "instead of" it)
_NEGATED = re.compile(r"不是|\bnot\b|\b(?:is|was|are|were)n'?t\b|\bno longer\b|\banymore\b|\binstead of\b", re.I)


def correction_of(text: str) -> tuple[bool, str | None]:
    """(is this fact a correction, the old value it says is wrong) for a fact text: a correction word ("其实",
    "actually") or a named old value ("不是上海" / "not Shanghai") makes it one; the old value may be None."""
    cued = bool(CUES["correction"].search(text))
    old = _captured(_CORRECTION_OLD, text) if cued or _NEGATED.search(text) else None
    return cued or old is not None, old


# -- preferences --------------------------------------------------------------------------
_LIKE_OBJECT = re.compile(
    r"(?:不太喜欢|不喜欢|喜欢|讨厌|受不了|不爱|爱|偏爱|最爱|钟爱|偏好|习惯|不要|别给我)(?P<v>[^，,。!！]{1,25})|"
    r"(?:don'?t like|do not like|don'?t enjoy|can'?t stand|not a fan of|fan of|like|love|enjoy|prefer|hate|dislike|"
    r"avoid|adore|fond of|into|favou?rite \w+ is|go-to \w+ is|never (?:eat|drink)|usually (?:drink|eat|take|get|order))"
    r"\s+(?P<v2>[^,.;!?]{1,50})", re.I)
_VERB_PREFIX = re.compile(r"^(?:吃|喝|看|听|玩|用|去|住|坐|穿|买|点)|^(?:to\s+)?(?:eat(?:ing)?|drink(?:ing)?|watch(?:ing)?|"
                          r"listen(?:ing)? to|play(?:ing)?|using|use|having|have|get(?:ting)?)\s+", re.I)
_NEUTRAL = re.compile(r"无所谓|都行|都可以|随便|没什么偏好|\b(?:don'?t mind|doesn'?t matter|either (?:is|way)|"
                      r"no preference|indifferent|whatever)\b", re.I)


def preference_properties(text: str) -> dict[str, object]:
    if _NEUTRAL.search(text):
        polarity = "neutral"
    elif CUES["dislike"].search(text):
        polarity = "dislike"
    else:
        polarity = "like"
    m = _LIKE_OBJECT.search(text)
    subject = _first_group(m) if m else None
    if subject:
        subject = _VERB_PREFIX.sub("", subject.strip())
        subject = re.split(r"\s+(?:and|but|because|since|when|if)\s+|因为|但是?|不过", subject)[0]
    entities = find_entities(text)
    subject = _clean(subject) or (entities[0].surface if entities else _clean(text, 80))
    strength = 0.7
    if re.search(r"最|favou?rite|go-to|adore|the most|absolutely", text, re.I):
        strength = 0.95
    elif INTENSIFIERS.search(text):
        strength = 0.9
    elif SOFTENERS.search(text):
        strength = 0.4
    if polarity == "neutral":
        strength = 0.3
    return {"subject": subject, "preference_type": polarity, "strength": strength}


# -- tasks ----------------------------------------------------------------------------
_REQUEST_PREFIX = re.compile(
    r"^(?:请你?|麻烦你?|帮我|帮忙|你帮我|记得|提醒我|别忘了|给我|替我|我(?:需要|得|要|必须)|"
    r"(?:can|could|would) you(?: please)?|please|help me|remind me to|remind me|don'?t let me forget to|"
    r"don'?t forget to|make sure (?:to|i)|i need to|i have to|i must|i should|i gotta|i'?ve got to)\s*", re.I)
_LOW = re.compile(r"不急|不着急|有空|慢慢|随时|\b(?:no rush|whenever|when you (?:can|get a chance)|low priority|"
                  r"not urgent|no hurry|sometime)\b", re.I)


def strip_request(text: str) -> str:
    out = text.strip()
    for _ in range(3):
        new = _REQUEST_PREFIX.sub("", out).strip()
        if new == out:
            break
        out = new
    return out or text.strip()


def task_properties(text: str, now: datetime) -> dict[str, object]:
    deadline = resolve_deadline(text, now)
    if _LOW.search(text):
        priority = "low"
    elif CUES["urgency"].search(text):
        priority = "high"
    else:
        priority = "medium"
    status = "in_progress" if CUES["progress"].search(text) else "pending"
    props: dict[str, object] = {"goal": _clean(strip_request(text), 200), "status": status, "priority": priority}
    if deadline is not None:
        props["deadline"] = deadline.value
    return props


#: a task moved to a later time (general markers): the report changes its deadline, not its status
POSTPONE = re.compile(r"推迟|延后|延期|往后推|改到|改期|挪到|推到|顺延|\b(?:postpone[ds]?|push(?:ed|ing)? (?:it |that |this )?"
                       r"(?:back|to)|(?:got|been|was|is|be|get) moved to|mov(?:e|ed|ing) (?:it|that|this) to|reschedul\w*|delay(?:ed)? (?:to|until)|"
                       r"put (?:it )?off)\b", re.I)


def postponed_to(text: str, now: datetime) -> str | None:
    """The new deadline (ISO date) a postponement names ("推迟到下周五", "pushed it to Monday"), else None."""
    if not POSTPONE.search(text):
        return None
    deadline = resolve_deadline(text, now)
    return None if deadline is None else deadline.value.isoformat()


#: the perfective aspect, a general marker of something that has happened (not a word list of "done" verbs): in
#: Chinese a verb with the aspect particle 了 or 过 or a result complement (好了 / 完了 / 到了); in English a past or
#: perfect form (a regular past "-ed", the common irregular pasts, "have/has + participle")
_PERFECTIVE_ZH = re.compile(r"[\u4e00-\u9fff](?<![为除算罢])了(?!解|不起|吗|没)|(?<![不难])过(?![来去年节日程敏期])"
                            r"|(?:好|完|到|掉|成)了")
_PERFECTIVE_EN = re.compile(r"\b(?:(?:i|we|he|she|they|it|you)'ve|have|has)\s+(?:just\s+|finally\s+|already\s+|now\s+)?"
                            r"(?:been\s+)?\w+(?:ed|en|t|de|ne|ught|ung|id|ot)\b|"
                            r"\b(?:got|went|made|bought|sent|paid|took|found|told|did|came|gave|put|left|met|rang|spoke|"
                            r"heard|saw|wrote|sold|brought|caught|chose|ran|won|lost|sat|drove|flew|ate|hung|dug|threw|"
                            r"kept|held|sang|began|broke|forgot)\b", re.I)
#: more of the irregular pasts of English, those a past tense only (not also a present, a participle read as an
#: adjective, a noun or a name, or a hedge: "read", "set", "felt", "thought", "had", "bit", "drew", "stuck" are left
#: out): "said", "knew", "built", ...
#: Off by default (docs/decisions/0102)
MORE_IRREGULAR_PASTS = False
_MORE_PASTS = re.compile(r"\b(?:said|knew|became|built|spent|lent|understood|taught|fought|wore|tore|froze|rode|woke|"
                         r"stole|fell|led|fled|slept|swept|wept|dealt|shook|forgave|grew|blew|withdrew|drank|swam|"
                         r"sank|shrank|struck|swung|slid|hid|mistook|undertook|arose|laid|sought|overslept|begun)\b",
                         re.I)
#: a regular past form ("called", "arrived"); not after a form of "be" or a degree word, where it is an adjective or
#: a state ("I'm tired", "so excited", "is closed")
_PAST_ED = re.compile(r"(?P<before>\b[\w']+\s+)?(?P<verb>\b[a-z]{2,}ed)\b", re.I)
_NOT_PAST = re.compile(r"^(?:am|is|are|be|being|so|too|very|really|feel|feels|felt|get|gets|getting|'m|i'm|"
                       r"you're|we're|they're|it's|he's|she's|that's|seem|seems|look|looks|quite|pretty|a|the|more|"
                       r"most|less|not)\s+$", re.I)
_ED_WORDS = frozenset({"need", "feed", "speed", "seed", "bed", "red", "shed", "bleed", "breed", "weed", "proceed",
                       "exceed", "succeed", "indeed", "hundred", "sacred", "wicked", "naked", "kindred", "rugged"})


#: a result state told of something ("the results are in", "the forms are back", "it's all over")
_RESULT_EN = re.compile(r"\b(?:is|are|was|were|it's|they're)\s+(?:all\s+|now\s+|finally\s+)?(?:in|back|through|over|"
                        r"ready|done|out)\b\s*(?:[,.!;]|$|and\b|now\b)", re.I)


def _past_en(text: str) -> bool:
    if _PERFECTIVE_EN.search(text) or _RESULT_EN.search(text) or (MORE_IRREGULAR_PASTS and _MORE_PASTS.search(text)):
        return True
    for m in _PAST_ED.finditer(text):
        before = (m.group("before") or "").lower()
        if m.group("verb").lower() not in _ED_WORDS and not _NOT_PAST.match(before):
            return True
    return False


#: markers of work still going on (not finished): the report is progress, not completion
_UNFINISHED = re.compile(r"还没|没(?:有)?(?:做|弄|办|好|完)|尚未|还在|一半|\b(?:not yet|still|halfway|partly|"
                         r"haven'?t|hasn'?t|didn'?t|not (?:done|finished))\b", re.I)


USE_ASPECT = True


#: a clause set in the future (a coming time, "first go and…", "then"): its 了 marks a change still to come or an
#: order ("明天去把车洗了", "先去把表交了", "等他回来再说了"), not something that has happened; a time word that
#: only qualifies a noun ("明天的票买好了") sets no clause in the future
_FUTURE_ZH = re.compile(r"(?:明天|明早|明晚|后天|下周|下星期|下礼拜|下个?月|下次|下回|待会儿?|等会儿?|一会儿?|回头|改天|过两天|过几天|"
                        r"到时候?|马上|即将|将要|就要|快要)(?!的)|^(?:那|那就|我|咱们?|你)?先(?:去|把|给|找|跟|和)|等.{1,12}再")
#: a result complement (好了 / 完了 / 到了 / 掉了 / 成了): the result is there, whatever time the clause names
_RESULT_ZH = re.compile(r"(?:好|完|到|掉|成)了")


#: a condition ("如果…", "…的话", "if it's booked, …"): what it supposes has not been reported as having happened.
#: English "if" only where it opens the sentence ("asked if they could…" inside a report is no condition on it)
CONDITIONAL = re.compile(r"如果|要是|假如|万一|的话|^\W*(?:(?:and|but|so|ok|okay|oh),?\s+)?(?:if|unless|in case)\b", re.I)


def _future_zh(text: str) -> bool:
    """A Chinese clause set in the future that states no result (see _FUTURE_ZH)."""
    return bool(re.search(r"[\u4e00-\u9fff]", text)) and bool(_FUTURE_ZH.search(text)) and not _RESULT_ZH.search(text)


def perfective(text: str) -> bool:
    """The text tells something as having happened (perfective / past / perfect aspect) and nothing as unfinished.
    A Chinese clause set in the future is no report of something done unless it states a result (好了 / 完了)."""
    if re.search(r"[\u4e00-\u9fff]", text):
        found = bool(_PERFECTIVE_ZH.search(text)) and not _future_zh(text)
    else:
        found = _past_en(text)
    return found and not _UNFINISHED.search(text) and not CUES["progress"].search(text) and not CONDITIONAL.search(text)


def update_status(text: str) -> str:
    """The lifecycle status an update report announces: a report with no done word is complete when told in the
    perfective aspect ("rang both garages", "签证办下来了"), in progress otherwise."""
    done = CUES["done"].search(text)
    if done and re.search(r"已经|already|自己", text, re.I) and not re.search(r"取消|cancel", text, re.I):
        return "completed"
    if CUES["abandon"].search(text):
        return "failed"
    if done and _future_zh(text):
        return "in_progress"  # "先去把表交了", "下周把方案发了": the work is still to come
    if done:
        return "completed"
    if decision_of(text) is not None or re.search(r"定了|定下来了|敲定|\b(?:decided|settled|sorted)\b", text, re.I):
        return "completed"  # a choice made closes the work of choosing ("酒店定了", "we settled on the blue one")
    if USE_ASPECT and perfective(text):
        return "completed"
    return "in_progress"


# -- emotions ---------------------------------------------------------------------------
_TRIGGER = re.compile(r"(?:因为|由于|被|为了|对于?|关于)(?P<v>[^，,。!！]{1,30})|(?:because(?: of)?|about|over|since|after|"
                      r"with|by|at)\s+(?P<v2>[^,.;!?]{2,60})", re.I)


def emotion_properties(text: str) -> dict[str, object] | None:
    found = find_emotion(text)
    if found is None:
        return None
    emotion, _word = found
    intensity = 0.55
    if INTENSIFIERS.search(text):
        intensity = 0.8
    if text.count("!") + text.count("！") >= 2 or re.search(r"死了|透了|崩溃|受不了|炸|can'?t take|sick of", text, re.I):
        intensity = 0.9
    if SOFTENERS.search(text):
        intensity = 0.35
    trigger = _captured(_TRIGGER, text)
    props: dict[str, object] = {"emotion_type": emotion, "intensity": intensity}
    if trigger:
        props["trigger"] = trigger
    return props


# -- frames -----------------------------------------------------------------------------
_FRAMES: list[tuple[str, re.Pattern[str]]] = [
    ("interview", re.compile(r"面试|interview", re.I)),
    ("negotiation", re.compile(r"谈判|砍价|议价|谈合同|negotiat|bargain", re.I)),
    ("debugging", re.compile(r"调试|排查|debug|bug|报错|error|stack trace|troubleshoot", re.I)),
    ("brainstorm", re.compile(r"头脑风暴|brainstorm|想点子|出主意", re.I)),
    ("tutorial", re.compile(r"教我|教程|讲解|学习|上课|tutorial|teach me|lesson|explain|walk me through|study", re.I)),
    ("meeting", re.compile(r"会议|开会|例会|周会|站会|评审|复盘|meeting|standup|stand-up|sync|retro|review|call", re.I)),
    ("medical", re.compile(r"看病|就医|医生|问诊|体检|doctor|medical|symptom|clinic", re.I)),
    ("travel", re.compile(r"旅行|旅游|出差|行程|trip|travel|vacation|itinerary|holiday", re.I)),
    ("shopping", re.compile(r"购物|买东西|选购|挑选|shopping|buy(?:ing)? a", re.I)),
    ("planning", re.compile(r"规划|计划|安排|roadmap|planning|plan", re.I)),
    ("casual", re.compile(r"闲聊|聊聊天|随便聊|chat|small talk", re.I)),
]
_TOPIC = re.compile(r"(?:关于|讨论|聊|主题是|议题是|针对)(?P<v>[^，,。!！]{1,25})|(?:about|on|for|regarding|discussing)\s+"
                    r"(?P<v2>[^,.;!?]{2,50})", re.I)
_RULE = re.compile(r"(?:请|要|不要|别|只|必须|always|never|only|keep|don'?t|please|use)\s*[^，,。.;!]{2,40}", re.I)


def frame_properties(text: str) -> dict[str, object]:
    frame_type = next((name for name, pattern in _FRAMES if pattern.search(text)), "other")
    topic = _captured(_TOPIC, text)
    props: dict[str, object] = {"frame_type": frame_type, "active": True}
    if topic:
        props["topic"] = topic
    rules = [r.group(0).strip() for r in _RULE.finditer(text)][:5]
    if rules and re.search(r"回答|回复|answer|reply|respond|keep|use|用", text, re.I):
        props["rules"] = rules
    return props


# -- dialogue acts --------------------------------------------------------------------------
_ACTS: list[tuple[str, re.Pattern[str]]] = [
    ("thanks", re.compile(r"谢谢|多谢|感谢|谢啦|\b(?:thanks|thank you|thx|ty|cheers|appreciate it)\b", re.I)),
    ("apology", re.compile(r"对不起|抱歉|不好意思|\b(?:sorry|my bad|apologi[sz]e)\b", re.I)),
    ("farewell", re.compile(r"再见|拜拜|回头聊|晚安|\b(?:bye|goodbye|see you|good night|talk later|ttyl)\b", re.I)),
    ("greeting", re.compile(r"^(?:你好|您好|嗨|哈喽|早上好|晚上好|早|hi|hello|hey|good (?:morning|evening|afternoon))\b", re.I)),
    ("reject", re.compile(r"^(?:不用|不要|不行|不对|不是|算了|no\b|nope|nah|not really|don'?t)", re.I)),
    ("confirm", re.compile(r"^(?:对|是的|没错|就是|可以|行|yes|yeah|yep|correct|exactly|right|sure)\b", re.I)),
    ("acknowledge", re.compile(r"^(?:好的?|嗯+|哦+|收到|明白|知道了|了解|ok|okay|got it|alright|noted|i see|"
                               r"understood|cool|sounds good|will do)", re.I)),
    ("complaint", re.compile(r"破|烂|太差|垃圾|坑|\b(?:terrible|awful|useless|sucks|worst|broken again)\b", re.I)),
    ("question", re.compile(r"[?？]\s*$|吗\s*$|呢\s*$|^(?:what|how|why|when|where|who|which|is|are|do|does|did|can|could)\b",
                            re.I)),
    ("request", CUES["request"]),
]


def act_type(text: str) -> str:
    """The dialogue act of a whole utterance (question, request, inform, acknowledge, thanks, ...)."""
    stripped = text.strip()
    for name, pattern in _ACTS:
        if pattern.search(stripped):
            return name
    return "inform"
