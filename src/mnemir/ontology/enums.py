"""Canonical enums with English and Chinese synonyms.

Values are normalised on the way in ("Pending", "未开始", "待办" -> ``pending``)
so that filters never miss a record because two writers spelled a status
differently. An unknown value is an error that lists the allowed ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from mnemir.errors import ValidationError

_SEPARATORS = re.compile(r"[\s\-_/]+")


def _key(value: str) -> str:
    return _SEPARATORS.sub(" ", value.strip().lower()).strip()


@dataclass(frozen=True)
class EnumSpec:
    """A closed vocabulary: canonical values plus synonyms that map onto them."""

    name: str
    values: tuple[str, ...]
    synonyms: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        lookup: dict[str, str] = {}
        for value in self.values:
            lookup[_key(value)] = value
        for alias, canonical in self.synonyms.items():
            if canonical not in self.values:
                raise ValueError(f"enum {self.name}: synonym {alias!r} maps to unknown value {canonical!r}")
            lookup[_key(alias)] = canonical
        object.__setattr__(self, "_lookup", lookup)

    def normalize(self, value: object, field_name: str | None = None) -> str:
        if isinstance(value, str):
            found = self._lookup.get(_key(value))  # type: ignore[attr-defined]
            if found is not None:
                return found
        raise ValidationError(
            f"unknown {self.name} value {value!r}",
            field=field_name or self.name,
            value=value,
            allowed=list(self.values),
        )

    def extended(self, values: Iterable[str] = (), synonyms: Mapping[str, str] | None = None) -> EnumSpec:
        merged_values = tuple(dict.fromkeys([*self.values, *values]))
        return EnumSpec(self.name, merged_values, {**self.synonyms, **(synonyms or {})})


TASK_STATUS = EnumSpec(
    "task_status",
    ("pending", "in_progress", "completed", "failed"),
    {
        "todo": "pending", "to do": "pending", "open": "pending", "not started": "pending", "planned": "pending",
        "未开始": "pending", "待办": "pending", "待处理": "pending", "未完成": "pending", "待定": "pending",
        "in-progress": "in_progress", "in progress": "in_progress", "doing": "in_progress", "started": "in_progress",
        "ongoing": "in_progress", "active": "in_progress", "wip": "in_progress",
        "进行中": "in_progress", "处理中": "in_progress", "正在进行": "in_progress", "已开始": "in_progress",
        "done": "completed", "complete": "completed", "finished": "completed", "closed": "completed",
        "已完成": "completed", "完成": "completed", "搞定": "completed", "已办": "completed",
        "fail": "failed", "cancelled": "failed", "canceled": "failed", "abandoned": "failed", "dropped": "failed",
        "失败": "failed", "已取消": "failed", "取消": "failed", "放弃": "failed", "已放弃": "failed",
    },
)
#: the task statuses still to do, and those that are done (with or without success)
OPEN_STATUSES = ("pending", "in_progress")
CLOSED_STATUSES = ("completed", "failed")

PRIORITY = EnumSpec(
    "priority",
    ("low", "medium", "high"),
    {
        "normal": "medium", "med": "medium", "urgent": "high", "critical": "high", "important": "high",
        "低": "low", "中": "medium", "中等": "medium", "普通": "medium", "高": "high", "紧急": "high", "重要": "high",
    },
)

FACT_SOURCE = EnumSpec(
    "source",
    ("user", "assistant", "external"),
    {"用户": "user", "助手": "assistant", "agent": "assistant", "system": "external", "外部": "external",
     "tool": "external", "web": "external", "knowledge base": "external"},
)

PREFERENCE_TYPE = EnumSpec(
    "preference_type",
    ("like", "dislike", "neutral"),
    {
        "love": "like", "likes": "like", "prefer": "like", "positive": "like", "喜欢": "like", "爱": "like",
        "偏好": "like", "爱吃": "like",
        "hate": "dislike", "dislikes": "dislike", "avoid": "dislike", "negative": "dislike", "不喜欢": "dislike",
        "讨厌": "dislike", "厌恶": "dislike",
        "indifferent": "neutral", "无所谓": "neutral", "中立": "neutral", "一般": "neutral",
    },
)

DIALOGUE_ACT = EnumSpec(
    "act_type",
    ("question", "request", "inform", "acknowledge", "greeting", "thanks", "apology", "complaint",
     "confirm", "reject", "farewell", "other"),
    {
        "ask": "question", "query": "question", "提问": "question", "问题": "question",
        "command": "request", "instruction": "request", "请求": "request", "指令": "request",
        "statement": "inform", "陈述": "inform", "告知": "inform",
        "ack": "acknowledge", "ok": "acknowledge", "确认收到": "acknowledge", "好的": "acknowledge",
        "hello": "greeting", "问候": "greeting", "打招呼": "greeting", "thank": "thanks", "感谢": "thanks",
        "sorry": "apology", "道歉": "apology", "抱怨": "complaint", "投诉": "complaint",
        "agree": "confirm", "yes": "confirm", "同意": "confirm", "disagree": "reject", "no": "reject",
        "拒绝": "reject", "bye": "farewell", "告别": "farewell", "其他": "other",
    },
)

EMOTION_TYPE = EnumSpec(
    "emotion_type",
    ("joy", "anger", "sadness", "fear", "anxiety", "frustration", "surprise", "disgust", "gratitude",
     "excitement", "calm", "tiredness", "love", "embarrassment"),
    {
        "happy": "joy", "happiness": "joy", "glad": "joy", "开心": "joy", "高兴": "joy", "快乐": "joy",
        "angry": "anger", "furious": "anger", "rage": "anger", "mad": "anger", "生气": "anger", "愤怒": "anger",
        "恼火": "anger", "火大": "anger",
        "sad": "sadness", "upset": "sadness", "depressed": "sadness", "难过": "sadness", "伤心": "sadness",
        "沮丧": "sadness", "失落": "sadness",
        "afraid": "fear", "scared": "fear", "害怕": "fear", "恐惧": "fear",
        "anxious": "anxiety", "worried": "anxiety", "nervous": "anxiety", "stressed": "anxiety", "焦虑": "anxiety",
        "担心": "anxiety", "紧张": "anxiety", "压力": "anxiety",
        "frustrated": "frustration", "annoyed": "frustration", "irritated": "frustration", "烦": "frustration",
        "烦躁": "frustration", "郁闷": "frustration", "无语": "frustration",
        "surprised": "surprise", "惊讶": "surprise", "disgusted": "disgust", "恶心": "disgust",
        "grateful": "gratitude", "thankful": "gratitude", "感激": "gratitude",
        "excited": "excitement", "兴奋": "excitement", "激动": "excitement",
        "calm": "calm", "relaxed": "calm", "平静": "calm", "放松": "calm",
        "tired": "tiredness", "exhausted": "tiredness", "累": "tiredness", "疲惫": "tiredness",
        "尴尬": "embarrassment", "embarrassed": "embarrassment", "爱": "love",
    },
)

FRAME_TYPE = EnumSpec(
    "frame_type",
    ("meeting", "negotiation", "tutorial", "interview", "brainstorm", "debugging", "planning", "travel",
     "shopping", "medical", "casual", "other"),
    {
        "会议": "meeting", "开会": "meeting", "谈判": "negotiation", "教程": "tutorial", "教学": "tutorial",
        "lesson": "tutorial", "面试": "interview", "头脑风暴": "brainstorm", "调试": "debugging",
        "debug": "debugging", "规划": "planning", "计划": "planning", "旅行": "travel", "trip": "travel",
        "购物": "shopping", "就医": "medical", "看病": "medical", "闲聊": "casual", "chat": "casual",
        "其他": "other",
    },
)

BUILTIN_ENUMS: dict[str, EnumSpec] = {
    e.name: e for e in (TASK_STATUS, PRIORITY, FACT_SOURCE, PREFERENCE_TYPE, DIALOGUE_ACT, EMOTION_TYPE, FRAME_TYPE)
}
