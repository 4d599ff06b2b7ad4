"""The pure lifecycle policies: records + now in, decisions out (no store, no model)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mnemir.errors import InvalidTransitionError, ValidationError
from mnemir.ir import Content, MemIR, MemoryStatus, Metadata, Scope
from mnemir.lifecycle import (
    DEFAULT_POLICIES,
    LifecycleConfig,
    Migration,
    RenameEnumValue,
    RenameProperty,
    RenameType,
    SplitType,
    TypePolicy,
    check_transition,
    decay_weight,
    find_conflicts,
    is_duplicate,
    is_overdue,
    may_supersede,
    merge_into,
    migrate_record,
    resolve,
    transition,
    updated_confidence,
)
from mnemir.lifecycle.merge import reinforced
from mnemir.lifecycle.terms import terms_overlap
from mnemir.ontology.enums import CLOSED_STATUSES, OPEN_STATUSES, TASK_STATUS
from mnemir.retrieve.ranking import is_about_user

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
CONFIG = LifecycleConfig()


def rec(type_: str, text: str, at: datetime = T0, user: str | None = "alice", **props: Any) -> MemIR:
    return MemIR(content=Content(text=text), type=type_, properties=props, scope=Scope(user_id=user),
                 metadata=Metadata(created_at=at, updated_at=at), valid_from=at)


# -- terms -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b", "same"), [
    ("花生", "花生酱", True),
    ("peanuts", "peanut butter", True),
    ("Shellfish", "shellfish", True),
    ("tea", "steak", False),
    ("coffee", "coffee ice cream", True),
    ("牛奶", "花生酱", False),
    ("nuts", "peanut butter", False),
    ("", "peanut", False),
])
def test_terms_overlap(a: str, b: str, same: bool) -> None:
    assert terms_overlap(a, b) is same
    assert terms_overlap(b, a) is same


# -- merge -----------------------------------------------------------------------------------
def test_repeat_is_a_duplicate_only_with_equal_keys_and_scope() -> None:
    policy = DEFAULT_POLICIES["Preference"]
    old = rec("Preference", "I like black coffee", subject="Black Coffee", preference_type="like", strength=0.6)
    again = rec("Preference", "I really like black coffee", subject="black coffee", preference_type="like")
    flipped = rec("Preference", "I don't like black coffee", subject="black coffee", preference_type="dislike")
    bob = rec("Preference", "I like black coffee", user="bob", subject="black coffee", preference_type="like")
    assert is_duplicate(again, old, 0.8, policy)
    assert not is_duplicate(again, old, 0.2, policy)  # keys equal but the meaning is far apart
    assert not is_duplicate(flipped, old, 0.95, policy)
    assert not is_duplicate(bob, old, 1.0, policy)
    archived = old.model_copy(update={"status": MemoryStatus.archived})
    assert not is_duplicate(again, archived, 0.9, policy)


def test_emotions_never_merge_and_closed_tasks_do_not_absorb_new_ones() -> None:
    anger = rec("EmotionalState", "so angry", emotion_type="anger")
    assert not is_duplicate(anger, rec("EmotionalState", "so angry", emotion_type="anger"), 1.0,
                            DEFAULT_POLICIES["EmotionalState"])
    done = rec("Task", "book the flight", status="completed")
    assert not is_duplicate(rec("Task", "book the flight", status="pending"), done, 1.0, DEFAULT_POLICIES["Task"])
    assert is_duplicate(rec("Task", "book the flight", status="pending"), rec("Task", "book the flight",
                                                                              status="pending"),
                        0.99, DEFAULT_POLICIES["Task"])


def test_merge_reinforces_refreshes_and_keeps_provenance() -> None:
    old = rec("Preference", "I like tea", subject="tea", preference_type="like", strength=0.6)
    new = rec("Preference", "I like tea a lot", at=T0 + timedelta(days=2), subject="tea", preference_type="like",
              context="breakfast")
    merged, history = merge_into(old, new, DEFAULT_POLICIES["Preference"], now=T0 + timedelta(days=2), actor="t")
    assert merged.id == old.id and merged.text == old.text
    assert merged.properties["strength"] == pytest.approx(0.7)
    assert merged.properties["context"] == "breakfast"
    assert merged.metadata.updated_at == T0 + timedelta(days=2)
    assert len(merged.metadata.merged_sources) == 1
    assert history.action == "merged" and history.related_ids == [new.id]
    assert history.after is not None and history.after["merged_text"] == "I like tea a lot"


@pytest.mark.parametrize(("old", "new", "expected"), [(0.6, None, 0.7), (0.6, 0.9, 0.925), (None, None, 0.625),
                                                      (1.0, None, 1.0)])
def test_reinforced(old: float | None, new: float | None, expected: float) -> None:
    assert reinforced(old, new, 0.25) == pytest.approx(expected)


# -- contradictions --------------------------------------------------------------------------
def test_fact_value_conflict_supersedes_by_recency() -> None:
    old = rec("Fact", "I live in Beijing", entity="user", attribute="residence", value="Beijing", source="user",
              confidence=0.7)
    new = rec("Fact", "I moved to Shanghai", at=T0 + timedelta(days=200), entity="User", attribute="residence",
              value="Shanghai", source="user", confidence=0.7)
    [conflict] = find_conflicts(new, [old], CONFIG)
    assert conflict.rule == "fact_value" and conflict.strategy == "supersede"
    res = resolve(conflict, CONFIG, now=T0 + timedelta(days=200), actor="t")
    assert res.old.status == MemoryStatus.superseded and res.old.valid_to == new.valid_from
    assert [r.target for r in res.new.relations("supersedes")] == [old.id]
    assert res.event is not None and res.event.kind == "superseded"


def test_backdated_fact_goes_straight_into_history() -> None:
    current = rec("Fact", "I live in Shanghai", at=T0, entity="user", attribute="residence", value="Shanghai")
    older = rec("Fact", "I lived in Beijing", at=T0 - timedelta(days=365), entity="user", attribute="residence",
                value="Beijing")
    [conflict] = find_conflicts(older, [current], CONFIG)
    res = resolve(conflict, CONFIG, now=T0, actor="t")
    assert res.new.status == MemoryStatus.superseded and res.new.valid_to == current.valid_from
    assert res.old.status == MemoryStatus.active and res.old.relations("supersedes")[0].target == older.id


def test_multi_valued_attributes_do_not_conflict() -> None:
    peanuts = rec("Fact", "allergic to peanuts", entity="user", attribute="allergy", value="peanuts")
    shellfish = rec("Fact", "allergic to shellfish", entity="user", attribute="allergy", value="shellfish")
    assert find_conflicts(shellfish, [peanuts], CONFIG) == []


@pytest.mark.parametrize(("fact_text", "value", "liking", "subject"), [
    ("我对花生过敏", "花生", "我喜欢吃花生酱", "花生酱"),
    ("I'm allergic to peanuts", "peanuts", "I love peanut butter", "peanut butter"),
])
def test_allergy_vs_liking_is_a_declared_conflict(fact_text: str, value: str, liking: str, subject: str) -> None:
    allergy = rec("Fact", fact_text, entity="user", attribute="allergy", value=value)
    like = rec("Preference", liking, subject=subject, preference_type="like")
    [conflict] = find_conflicts(like, [allergy], CONFIG)
    assert conflict.rule == "allergy_vs_liking" and conflict.strategy == "clarify"
    assert conflict.question and subject in conflict.question
    res = resolve(conflict, CONFIG, now=T0, actor="t")
    assert res.new.status == res.old.status == MemoryStatus.disputed
    assert res.event is not None and res.event.question == conflict.question


def test_someone_elses_allergy_is_not_the_users_conflict() -> None:
    friend = rec("Fact", "Bob is allergic to peanuts", entity="Bob", attribute="allergy", value="peanuts")
    like = rec("Preference", "I love peanut butter", subject="peanut butter", preference_type="like")
    assert find_conflicts(like, [friend], CONFIG) == []


@pytest.mark.parametrize(("entity", "about_user"), [
    ("user", True), ("The User", True), ("the_user", True), ("我", True), ("ALICE", True), ("alice", True),
    ("Bob", False), ("Alice's mum", False),
])
def test_the_user_is_recognised_however_spelled(entity: str, about_user: bool) -> None:
    """Conflict rules and recall roles share one notion of "a fact about the user" (ranking.is_about_user)."""
    allergy = rec("Fact", "allergic to peanuts", entity=entity, attribute="allergy", value="peanuts")
    like = rec("Preference", "I love peanut butter", subject="peanut butter", preference_type="like")
    assert is_about_user(allergy) is about_user
    assert len(find_conflicts(like, [allergy], CONFIG)) == (1 if about_user else 0)


def test_less_trusted_or_less_confident_source_does_not_supersede() -> None:
    user_fact = rec("Fact", "My birthday is May 1", entity="user", attribute="birthday", value="May 1",
                    source="user", confidence=0.9)
    guess = rec("Fact", "Birthday is June 2", entity="user", attribute="birthday", value="June 2",
                source="assistant", confidence=0.9)
    shaky = rec("Fact", "Birthday is June 2", entity="user", attribute="birthday", value="June 2", source="user",
                confidence=0.3)
    assert may_supersede(guess, user_fact, CONFIG)[0] is False
    assert may_supersede(shaky, user_fact, CONFIG)[0] is False
    [conflict] = find_conflicts(guess, [user_fact], CONFIG)
    res = resolve(conflict, CONFIG, now=T0, actor="t")
    assert res.old.status == MemoryStatus.disputed and res.event is not None and res.event.kind == "clarify"


def test_a_hypothesis_never_overrides_a_fact_and_facts_are_evidence() -> None:
    fact = rec("Fact", "I live in Shanghai", entity="user", attribute="residence", value="Shanghai")
    wrong = rec("Hypothesis", "maybe lives in Beijing", entity="user", attribute="residence", value="Beijing",
                confidence=0.5)
    assert may_supersede(wrong, fact, CONFIG)[0] is False
    [conflict] = find_conflicts(wrong, [fact], CONFIG)
    res = resolve(conflict, CONFIG, now=T0, actor="t")
    assert res.old == fact and not res.old_changed
    assert res.new.properties["confidence"] < 0.5 and res.new.status == MemoryStatus.active
    right = rec("Hypothesis", "maybe lives in Shanghai", entity="user", attribute="residence", value="Shanghai",
                confidence=0.5)
    [support] = find_conflicts(right, [fact], CONFIG)
    assert support.supports and resolve(support, CONFIG, now=T0, actor="t").new.properties["confidence"] > 0.5


def test_emotional_state_never_supersedes() -> None:
    anger = rec("EmotionalState", "furious", emotion_type="anger")
    assert may_supersede(anger, rec("Fact", "x", entity="a", attribute="b", value="c"), CONFIG)[0] is False


def test_strategy_is_configurable_per_type() -> None:
    config = CONFIG.with_policy("Preference", on_conflict="dispute")
    old = rec("Preference", "I like jazz", subject="jazz", preference_type="like")
    new = rec("Preference", "I can't stand jazz", subject="jazz", preference_type="dislike")
    [conflict] = find_conflicts(new, [old], config)
    res = resolve(conflict, config, now=T0, actor="t")
    assert res.event is not None and res.event.kind == "disputed" and res.event.question is None
    with pytest.raises(ValidationError) as info:
        CONFIG.with_policy("Fact", on_conflict="ignore")
    assert info.value.field == "on_conflict"


# -- tasks -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("current", "target", "ok"), [
    ("pending", "in_progress", True), ("in_progress", "completed", True), ("in_progress", "failed", True),
    ("pending", "completed", True), ("completed", "in_progress", True), ("failed", "pending", True),
    ("in_progress", "pending", True), ("completed", "failed", False), ("failed", "completed", False),
    ("completed", "completed", True),
])
def test_transition_table(current: str, target: str, ok: bool) -> None:
    if ok:
        check_transition(current, target, task_id="t1")
    else:
        with pytest.raises(InvalidTransitionError) as info:
            check_transition(current, target, task_id="t1")
        assert info.value.field == "status" and info.value.value == target
        assert set(info.value.allowed) == {"pending", "in_progress"}


def test_transition_normalises_synonyms_and_stamps_completion() -> None:
    task = rec("Task", "write the report", status="pending")
    moved, history = transition(task, "已完成", now=T0 + timedelta(hours=3), actor="t")
    assert moved.properties["status"] == "completed"
    assert moved.properties["completed_at"] == "2026-03-01T12:00:00Z"
    assert history is not None and history.before == {"properties": {"completed_at": None, "status": "pending"}}
    reopened, _ = transition(moved, "in progress", now=T0 + timedelta(days=1), actor="t")
    assert "completed_at" not in reopened.properties
    with pytest.raises(ValidationError) as info:
        transition(task, "someday", now=T0, actor="t")
    assert info.value.field == "status"


def test_open_and_closed_statuses_split_the_task_status_enum() -> None:
    assert set(OPEN_STATUSES).isdisjoint(CLOSED_STATUSES)
    assert sorted((*OPEN_STATUSES, *CLOSED_STATUSES)) == sorted(TASK_STATUS.values)


@pytest.mark.parametrize(("deadline", "now", "overdue"), [
    ("2026-03-01", T0, False),  # a date is due at the end of that day
    ("2026-03-01", T0 + timedelta(days=1), True),
    ("2026-03-01T08:00:00Z", T0, True),
    (None, T0 + timedelta(days=999), False),
])
def test_overdue(deadline: str | None, now: datetime, overdue: bool) -> None:
    props = {"status": "pending", **({"deadline": deadline} if deadline else {})}
    assert is_overdue(rec("Task", "x", **props), now) is overdue
    assert not is_overdue(rec("Task", "x", **{**props, "status": "completed"}), now)


# -- decay and hypotheses --------------------------------------------------------------------
def test_emotion_fades_within_a_day_and_preferences_keep_a_floor() -> None:
    anger = rec("EmotionalState", "furious", emotion_type="anger", intensity=0.9)
    assert decay_weight(anger, T0) == 1.0
    assert decay_weight(anger, T0 + timedelta(hours=6)) == pytest.approx(0.5)
    assert decay_weight(anger, T0 + timedelta(days=1)) < 0.07
    like = rec("Preference", "tea", subject="tea", preference_type="like")
    assert 0.5 <= decay_weight(like, T0 + timedelta(days=3650)) < 0.51
    assert decay_weight(rec("Fact", "x", entity="a", attribute="b", value="c"), T0 + timedelta(days=3650)) == 1.0


def test_confidence_moves_with_evidence_and_stays_inside_bounds() -> None:
    up = updated_confidence(0.3, supports=True, ratio=2.0)
    assert up > 0.3 and updated_confidence(up, supports=False, ratio=2.0) == pytest.approx(0.3, abs=1e-3)
    c = 0.5
    for _ in range(30):
        c = updated_confidence(c, supports=False, ratio=2.0)
    assert c == 0.01
    with pytest.raises(ValidationError):
        updated_confidence(0.5, supports=True, ratio=2.0, weight=0)


# -- migrations ------------------------------------------------------------------------------
def test_migration_steps_are_pure_and_compose() -> None:
    old = rec("Allergy", "allergic to peanuts", substance="peanuts", level="mild")
    migration = Migration("m1", (RenameType("Allergy", "Intolerance"),
                                 RenameProperty("Intolerance", "substance", "trigger"),
                                 RenameEnumValue("Intolerance", "level", "mild", "low")))
    new = migrate_record(old, migration)
    assert (new.type, new.properties) == ("Intolerance", {"trigger": "peanuts", "level": "low"})
    assert new.id == old.id and old.type == "Allergy"
    assert migrate_record(new, migration) is new  # already upgraded: nothing applies
    assert Migration.from_dict(migration.to_dict()) == migration


def test_split_type_routes_by_property() -> None:
    split = Migration("split", (SplitType("Fact", by="attribute", into={"Allergy": "Allergy"}),))
    allergy = rec("Fact", "peanuts", entity="user", attribute="allergy", value="peanuts")
    city = rec("Fact", "Shanghai", entity="user", attribute="residence", value="Shanghai")
    assert migrate_record(allergy, split).type == "Allergy"
    assert migrate_record(city, split) is city


def test_bad_configuration_names_the_field() -> None:
    with pytest.raises(ValidationError) as info:
        TypePolicy(merge_min_similarity=1.5)
    assert info.value.field == "merge_min_similarity"
    with pytest.raises(ValidationError) as info:
        Migration("", (RenameType("a", "b"),))
    assert info.value.field == "id"
