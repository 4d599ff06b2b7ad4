"""Knowledge about Fact attributes shared by the layers that judge facts against each other (the write side's
contradiction rules and recall's "likely replaced" judgement), so both apply the same rule."""

from __future__ import annotations

__all__ = ["MULTI_VALUED_ATTRIBUTES"]

#: Fact attributes that hold several values at once (being allergic to peanuts does not contradict shellfish)
MULTI_VALUED_ATTRIBUTES: frozenset[str] = frozenset({
    "allergy", "allergies", "allergic_to", "过敏", "过敏原", "过敏史", "hobby", "hobbies", "爱好", "兴趣",
    "language", "languages", "语言", "skill", "skills", "技能", "pet", "pets", "宠物", "child", "children", "孩子",
    "friend", "friends", "朋友", "likes", "dislikes", "member_of", "visited", "去过", "owns", "拥有",
    "diet_restriction", "dietary_restriction", "cannot_eat", "忌口", "不能吃", "tag", "tags", "alias", "aliases",
    # a user's decisions on different matters stand side by side: a choice that replaces an earlier one is matched by
    # meaning on the write side (docs/decisions/0064), not by sharing the attribute
    "decision", "decisions", "决定",
    # catch-all attributes an extractor gives when it cannot name one: they hold whatever was said, not one value
    "general", "other", "misc", "info", "note", "notes", "family", "relative", "relatives", "家人", "家庭", "其他",
})
