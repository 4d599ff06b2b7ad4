"""The built-in type ontology (the seed's types, names as in the seed)."""

from __future__ import annotations

from mnemir.ontology.enums import (
    DIALOGUE_ACT,
    EMOTION_TYPE,
    FACT_SOURCE,
    FRAME_TYPE,
    PREFERENCE_TYPE,
    PRIORITY,
    TASK_STATUS,
)
from mnemir.ontology.types import PropertySpec as P
from mnemir.ontology.types import TypeDef

#: bumped when a core type, property or enum changes (see mnemir.ontology.registry)
CORE_VERSION = "1.1"


def _props(*specs: P) -> dict[str, P]:
    return {s.name: s for s in specs}


def _unit(name: str, description: str, default: float | None = None, core: bool = False) -> P:
    return P(name, "float", description, minimum=0.0, maximum=1.0, default=default, core=core)


FACT = TypeDef(
    "Fact",
    "A static fact about the world or the user, stated by someone. Long-lived unless corrected.",
    _props(
        P("entity", "str", "what the fact is about", core=True),
        P("attribute", "str", "which aspect (e.g. weather, residence, allergy)", core=True),
        P("value", "str", "the value of the attribute", core=True),
        _unit("confidence", "how sure we are (0..1)", default=0.7),
        P("source", "enum", "who stated it", enum=FACT_SOURCE, default="user", core=True),
    ),
    role="answer",
    aliases=("事实", "fact", "knowledge"),
)

PREFERENCE = TypeDef(
    "Preference",
    "A liking, dislike, habit or leaning of the user. A soft constraint, below present instructions and needs.",
    _props(
        P("subject", "str", "what the preference is about", core=True),
        P("preference_type", "enum", "like, dislike or neutral", enum=PREFERENCE_TYPE, required=True, core=True),
        _unit("strength", "how strong (0..1)", default=0.6),
        P("context", "str", "the context in which it was expressed"),
    ),
    role="background",
    aliases=("偏好", "喜好", "preference", "like"),
)

TASK = TypeDef(
    "Task",
    "Something the user asked the agent to do. Pending/in-progress tasks are followed up; done ones are archived.",
    _props(
        P("goal", "str", "what is to be achieved"),
        P("status", "enum", "pending -> in_progress -> completed | failed", enum=TASK_STATUS, default="pending",
          core=True),
        P("deadline", "date_or_datetime", "when it is due", core=True),
        P("priority", "enum", "low, medium or high", enum=PRIORITY, default="medium", core=True),
        P("parent_task_id", "id", "the task this one belongs to", core=True),
        P("completed_at", "datetime", "when it was completed or failed"),
    ),
    role="task",
    aliases=("任务", "目标", "goal", "todo", "待办"),
)

PLAN = TypeDef(
    "Plan",
    "One step of the plan for a task. Follows its task's status.",
    _props(
        P("associated_task_id", "id", "the task this step serves", core=True),
        P("order", "int", "position in the plan (1-based)", minimum=0),
        P("status", "enum", "pending -> in_progress -> completed | failed", enum=TASK_STATUS, default="pending",
          core=True),
        P("prerequisites", "list", "ids or descriptions of steps that must come first"),
    ),
    role="task",
    aliases=("Step", "计划", "步骤", "plan step"),
)

EMOTIONAL_STATE = TypeDef(
    "EmotionalState",
    "An emotion the user expressed at a moment. Short-lived; strong negative ones are used with care.",
    _props(
        P("emotion_type", "enum", "which emotion", enum=EMOTION_TYPE, required=True, core=True),
        _unit("intensity", "how strong (0..1)", default=0.5),
        P("trigger", "str", "what caused it", core=True),
        P("duration", "str", "expected duration (e.g. PT24H, momentary)"),
    ),
    role="caution",
    aliases=("Emotion", "情感", "情绪", "情感状态", "emotional state"),
)

DIALOGUE_ACT_T = TypeDef(
    "DialogueAct",
    "The pragmatic kind of one utterance. Used to read the conversation, rarely as knowledge.",
    _props(
        P("utterance", "text", "the words as said"),
        P("act_type", "enum", "question, request, inform, acknowledge, ...", enum=DIALOGUE_ACT, required=True,
          core=True),
        P("underlying_goal", "str", "what the speaker is after"),
    ),
    role="dialogue",
    aliases=("对话行为", "dialogue act", "speech act"),
)

CONTEXTUAL_FRAME = TypeDef(
    "ContextualFrame",
    "The setting, rules or boundaries the conversation is in (a meeting, a tutorial, a negotiation).",
    _props(
        P("frame_type", "enum", "meeting, negotiation, tutorial, ...", enum=FRAME_TYPE, required=True, core=True),
        P("rules", "list", "rules that hold inside the frame"),
        P("participants", "list", "who takes part"),
        P("topic", "str", "what it is about", core=True),
        P("active", "bool", "whether the frame is in force now", default=True),
    ),
    role="context",
    aliases=("Frame", "上下文框架", "场景", "contextual frame"),
)

HYPOTHESIS = TypeDef(
    "Hypothesis",
    "A guess the agent made on incomplete evidence; its confidence moves with evidence.",
    _props(
        P("statement", "str", "what is supposed"),
        _unit("confidence", "how likely (0..1)", default=0.3),
        P("evidence", "list", "ids or descriptions of supporting/contradicting evidence"),
        P("entity", "str", "what it is about", core=True),
        P("attribute", "str", "which aspect", core=True),
        P("value", "str", "the supposed value"),
    ),
    role="hypothesis",
    aliases=("假设", "推测", "guess"),
)

EPISODE = TypeDef(
    "Episode",
    "One utterance kept verbatim (the evidence): who said it, in which session and turn, and when. Typed memories "
    "read from it link to it (derived_from). Never merged; follows retention like any memory.",
    _props(
        P("speaker", "str", "who said it (user, assistant, or a name)", core=True),
        P("session", "str", "the session it was said in", core=True),
        P("turn", "int", "its turn in the session", minimum=0, core=True),
        P("time", "datetime", "when it was said", core=True),
    ),
    role="answer",
    aliases=("情节", "原话", "episode", "utterance"),
)

BUILTIN_TYPES: tuple[TypeDef, ...] = (
    FACT, PREFERENCE, TASK, PLAN, EMOTIONAL_STATE, DIALOGUE_ACT_T, CONTEXTUAL_FRAME, HYPOTHESIS, EPISODE,
)
