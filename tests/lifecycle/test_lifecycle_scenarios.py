"""Multi-day scenarios with explicit ``now`` values, on a real SQLite store with the real default embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import mnemir
from mnemir.errors import InvalidTransitionError, NotFoundError, ValidationError
from mnemir.ir import MemIR, MemoryStatus
from mnemir.store.base import ANY, Write

DAY = timedelta(days=1)
LAST_YEAR = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


def like(mem: mnemir.Memory, text: str, subject: str, when: datetime, *, turn: int, kind: str = "like",
         user: str = "alice") -> MemIR:
    return mem.add(text, "Preference", {"subject": subject, "preference_type": kind}, user=user, session=f"s{turn}",
                   speaker="user", turn=turn, now=when)


def fact(mem: mnemir.Memory, text: str, attribute: str, value: str, when: datetime, *, source: str = "user",
         entity: str = "user", confidence: float = 0.7, user: str = "alice") -> MemIR:
    return mem.add(text, "Fact", {"entity": entity, "attribute": attribute, "value": value, "source": source,
                                  "confidence": confidence}, user=user, now=when)


def test_repeated_preferences_merge_over_days(mem: mnemir.Memory) -> None:
    first = like(mem, "我喜欢喝黑咖啡，不加糖", "黑咖啡", NOW, turn=1)
    second = like(mem, "我喜欢黑咖啡", "黑咖啡", NOW + 3 * DAY, turn=7)
    third = like(mem, "I like black coffee", "黑咖啡", NOW + 9 * DAY, turn=2)
    assert first.id == second.id == third.id
    assert mem.count(types=["Preference"], user="alice") == 1
    stored = mem.get(first.id, user="alice")
    assert stored.properties["strength"] > first.properties["strength"]
    assert stored.properties["strength"] == pytest.approx(third.properties["strength"])
    assert stored.metadata.updated_at == NOW + 9 * DAY  # refreshed
    assert [s.turn for s in (stored.metadata.source, *stored.metadata.merged_sources)] == [1, 7, 2]
    assert [h.action for h in mem.history(first.id, user="alice")] == ["created", "merged", "merged"]
    assert mem.last_write_report is not None and mem.last_write_report.merged[0].memory_id == first.id


def test_near_duplicates_of_different_users_or_subjects_stay_apart(mem: mnemir.Memory) -> None:
    a = like(mem, "I like black coffee", "black coffee", NOW, turn=1)
    b = like(mem, "I like black coffee", "black coffee", NOW, turn=1, user="bob")
    c = like(mem, "I like green tea", "green tea", NOW, turn=2)
    assert len({a.id, b.id, c.id}) == 3


def test_moving_supersedes_residence_and_as_of_still_finds_beijing(mem: mnemir.Memory) -> None:
    beijing = fact(mem, "我住在北京", "residence", "北京", LAST_YEAR)
    shanghai = fact(mem, "我从北京搬到了上海", "residence", "上海", NOW)
    old = mem.get(beijing.id, user="alice")
    assert old.status == MemoryStatus.superseded and old.valid_to == NOW
    assert [r.target for r in shanghai.relations("supersedes")] == [beijing.id]
    now_hits = [h.memory.id for h in mem.search("我住在哪里", types=["Fact"], user="alice")]
    assert now_hits == [shanghai.id]
    then = mem.as_of(LAST_YEAR + 30 * DAY, "我住在哪里", types=["Fact"], user="alice")
    assert [h.memory.id for h in then] == [beijing.id]
    history = mem.history(beijing.id, user="alice")
    assert [h.action for h in history] == ["created", "superseded"]
    assert history[-1].related_ids == [shanghai.id] and "fact_value" in history[-1].reason
    assert history[-1].at == NOW and history[-1].actor == "api"


def test_preference_flip_and_what_the_user_preferred_in_march(mem: mnemir.Memory) -> None:
    march = datetime(2026, 3, 5, tzinfo=UTC)
    liked = like(mem, "I love spicy food", "spicy food", march, turn=1)
    disliked = like(mem, "I can't handle spicy food any more", "spicy food", march + 60 * DAY, turn=2,
                    kind="dislike")
    assert mem.get(liked.id, user="alice").status == MemoryStatus.superseded
    in_march = mem.as_of(march + 10 * DAY, types=["Preference"], user="alice")
    assert [(h.memory.id, h.memory.properties["preference_type"]) for h in in_march] == [(liked.id, "like")]
    in_june = mem.as_of(march + 90 * DAY, types=["Preference"], user="alice")
    assert [h.memory.id for h in in_june] == [disliked.id]


def test_assistant_guess_cannot_overwrite_what_the_user_said(mem: mnemir.Memory) -> None:
    said = fact(mem, "My birthday is May 1", "birthday", "May 1", NOW, source="user", confidence=0.9)
    guess = fact(mem, "The user's birthday is probably June 2", "birthday", "June 2", NOW + DAY,
                 source="assistant", confidence=0.5)
    assert mem.get(said.id, user="alice").status == MemoryStatus.disputed
    assert guess.status == MemoryStatus.disputed
    report = mem.last_write_report
    assert report is not None and report.questions and "May 1" in report.questions[0]
    [conflict] = mem.conflicts(user="alice")
    assert {conflict.a.id, conflict.b.id} == {said.id, guess.id} and conflict.rule == "fact_value"
    kept = mem.resolve_conflict(said.id, guess.id, user="alice", now=NOW + 2 * DAY, reason="user confirmed")
    assert kept.status == MemoryStatus.active
    assert mem.get(guess.id, user="alice").status == MemoryStatus.superseded
    assert mem.conflicts(user="alice") == []


def test_peanut_allergy_vs_peanut_butter_is_flagged(mem: mnemir.Memory) -> None:
    allergy = fact(mem, "我对花生过敏", "allergy", "花生", NOW)
    fact(mem, "我对虾过敏", "allergy", "虾", NOW + DAY)  # a second allergy is no contradiction
    liking = like(mem, "我超喜欢吃花生酱", "花生酱", NOW + 2 * DAY, turn=3)
    assert liking.status == MemoryStatus.disputed
    assert mem.get(allergy.id, user="alice").status == MemoryStatus.disputed
    [conflict] = mem.conflicts(user="alice")
    assert conflict.rule == "allergy_vs_liking"
    assert conflict.question is not None and "花生酱" in conflict.question
    assert mem.last_write_report is not None and mem.last_write_report.questions == [conflict.question]
    # disputed memories stay visible to normal search (recall labels them uncertain)
    assert allergy.id in {h.memory.id for h in mem.search("花生", user="alice")}


def test_task_lifecycle_steps_follow_and_archive_a_week_later(mem: mnemir.Memory) -> None:
    task = mem.add("帮我写季度报告", "Task", {"status": "pending", "deadline": "2026-03-12"}, user="alice", now=NOW)
    steps = [mem.add(text, "Plan", {"associated_task_id": task.id, "order": i}, user="alice", now=NOW)
             for i, text in enumerate(["收集销售数据", "写初稿", "发给老板审阅"], start=1)]
    assert [t.id for t in mem.overdue_tasks(user="alice", now=NOW + 3 * DAY)] == [task.id]
    mem.update_task(task.id, status="进行中", user="alice", now=NOW + DAY)
    mem.update_task(task.id, status="in_progress", user="alice", now=NOW + DAY)  # staying put records nothing
    assert len(mem.history(task.id, user="alice")) == 2
    done = mem.update_task(task.id, status="completed", user="alice", now=NOW + 2 * DAY, reason="sent to boss")
    assert done.properties["completed_at"] == "2026-03-12T09:00:00Z"
    assert [mem.get(s.id, user="alice").properties["status"] for s in steps] == ["completed"] * 3
    assert mem.overdue_tasks(user="alice", now=NOW + 3 * DAY) == []
    with pytest.raises(InvalidTransitionError) as info:
        mem.update_task(task.id, status="failed", user="alice", now=NOW + 3 * DAY)
    assert info.value.field == "status" and mem.get(task.id, user="alice").properties["status"] == "completed"

    assert mem.maintain(now=NOW + 8 * DAY).count("archive_closed_task") == 0  # 6 days after completion
    report = mem.maintain(now=NOW + 9 * DAY + timedelta(minutes=1))
    assert report.counts == {"archive_closed_task": 1, "archive_step_with_task": 3}
    assert mem.get(task.id, user="alice").status == MemoryStatus.archived
    assert mem.search("季度报告", user="alice") == []
    assert task.id in {h.memory.id for h in mem.search("季度报告", user="alice", include_archived=True)}
    assert [h.action for h in mem.history(task.id, user="alice")] == [
        "created", "status_changed", "status_changed", "archived"]
    assert mem.maintain(now=NOW + 9 * DAY + timedelta(minutes=1)).changed == 0
    # reopening an archived task brings it back
    reopened = mem.update_task(task.id, status="pending", user="alice", now=NOW + 10 * DAY)
    assert reopened.status == MemoryStatus.active and "completed_at" not in reopened.properties


def test_recently_used_completed_task_is_kept(mem: mnemir.Memory) -> None:
    task = mem.add("订机票", "Task", {"status": "pending"}, user="alice", now=NOW)
    mem.update_task(task.id, status="done", user="alice", now=NOW)
    used = mem.get(task.id, user="alice")
    meta = used.metadata.model_copy(update={"last_accessed_at": NOW + 6 * DAY})
    mem._write([Write(used.model_copy(update={"metadata": meta}), None)])
    assert mem.maintain(now=NOW + 8 * DAY).count("archive_closed_task") == 0
    assert mem.maintain(now=NOW + 14 * DAY).count("archive_closed_task") == 1


def test_furious_outburst_fades_as_a_mood_but_the_event_is_kept(mem: mnemir.Memory) -> None:
    outburst = mem.add("这个破软件我再也受不了了！", "EmotionalState",
                       {"emotion_type": "愤怒", "intensity": 0.95, "trigger": "这个软件"}, user="alice", now=NOW)
    fact = mem.add("这个软件的3.0版本新增了离线模式", "Fact",
                   {"entity": "这个软件", "attribute": "new_feature", "value": "离线模式", "source": "external"},
                   user="alice", now=NOW)
    assert mem.decay_weight(outburst, now=NOW + DAY) < 0.07
    report = mem.maintain(now=NOW + 2 * DAY)
    assert "archive_expired" not in report.actions  # what happened is kept: it can be asked about months later
    assert mem.get(outburst.id, user="alice").status == MemoryStatus.active
    result = mem.recall("这个软件的新版本有什么功能？", user="alice", now=NOW + 2 * DAY, k=3)
    assert result.hits[0].id == fact.id
    for hit in result.hits:  # as a mood it has faded: never an answer, at most a faded caution
        if hit.id == outburst.id:
            assert hit.role == "caution" and "faded" in hit.flags


def test_emotion_never_supersedes_and_hypothesis_never_overrides_a_fact(mem: mnemir.Memory) -> None:
    city = fact(mem, "I live in Shanghai", "residence", "Shanghai", NOW)
    hyp = mem.add("The user might live in Hangzhou", "Hypothesis",
                  {"entity": "user", "attribute": "residence", "value": "Hangzhou", "confidence": 0.4},
                  user="alice", now=NOW + DAY)
    assert mem.get(city.id, user="alice").status == MemoryStatus.active
    assert hyp.status == MemoryStatus.active and hyp.properties["confidence"] < 0.4
    assert [r.target for r in hyp.relations("contradicted_by")] == [city.id]


def test_hypothesis_moves_with_evidence_and_is_promoted_only_by_confirmation(mem: mnemir.Memory) -> None:
    hyp = mem.add("The user probably has a cat", "Hypothesis",
                  {"entity": "user", "attribute": "pet_kind", "value": "cat", "confidence": 0.3}, user="alice",
                  now=NOW)
    up = mem.add_evidence(hyp.id, supports=True, evidence="mentioned buying cat litter", user="alice",
                          now=NOW + DAY)
    up = mem.add_evidence(hyp.id, supports=True, evidence="sent a photo of a kitten", weight=2.0, user="alice",
                          now=NOW + 2 * DAY)
    assert up.properties["confidence"] > 0.7 and up.type == "Hypothesis"
    assert mem.count(types=["Fact"], user="alice") == 0  # no promotion without confirmation
    down = mem.add_evidence(hyp.id, supports=False, evidence="said they are allergic to cats", user="alice",
                            now=NOW + 3 * DAY)
    assert down.properties["confidence"] < up.properties["confidence"]
    assert len(down.properties["evidence"]) == 3
    confirmed = mem.confirm_hypothesis(hyp.id, user="alice", now=NOW + 4 * DAY)
    assert confirmed.type == "Fact" and confirmed.properties["value"] == "cat"
    assert [r.target for r in confirmed.relations("supersedes")] == [hyp.id]
    assert mem.get(hyp.id, user="alice").status == MemoryStatus.superseded
    with pytest.raises(ValidationError) as info:
        mem.add_evidence(confirmed.id, supports=True, evidence="x", user="alice")
    assert info.value.field == "type"


def test_refuted_hypothesis_is_archived(mem: mnemir.Memory) -> None:
    hyp = mem.add("maybe vegetarian", "Hypothesis",
                  {"entity": "user", "attribute": "diet", "value": "vegetarian", "confidence": 0.2},
                  user="alice", now=NOW)
    for i in range(4):
        mem.add_evidence(hyp.id, supports=False, evidence=f"ordered steak #{i}", user="alice", now=NOW + DAY)
    assert mem.maintain(now=NOW + 2 * DAY).counts == {"archive_refuted_hypothesis": 1}


def test_dialogue_acts_are_session_scoped(mem: mnemir.Memory) -> None:
    first = mem.add("你好", "DialogueAct", {"act_type": "greeting"}, user="alice", session="s1", now=NOW)
    second = mem.add("在吗", "DialogueAct", {"act_type": "greeting"}, user="alice", session="s2",
                     now=NOW + timedelta(hours=2))
    report = mem.maintain(now=NOW + timedelta(hours=3))
    assert report.examples == {"archive_stale_dialogue": [first.id]}
    assert mem.get(second.id, user="alice").status == MemoryStatus.active


def test_maintain_is_idempotent_dry_run_writes_nothing_and_scopes(mem: mnemir.Memory) -> None:
    for user in ("alice", "bob"):
        mem.add("ugh, so annoyed", "DialogueAct", {"act_type": "complaint"}, user=user, now=NOW)
    later = NOW + 3 * DAY
    preview = mem.maintain(now=later, dry_run=True)
    assert preview.changed == 2 and preview.dry_run and "would change" in preview.render()
    assert mem.count(types=["DialogueAct"], user="alice") == 1
    assert mem.maintain(now=later, user="alice").changed == 1
    assert mem.count(types=["DialogueAct"], user="bob") == 1
    assert mem.maintain(now=later).changed == 1
    again = mem.maintain(now=later)
    assert again.changed == 0 and "nothing to do" in again.render() and again.to_dict()["counts"] == {}
    with pytest.raises(ValidationError):
        mem.maintain(now=datetime(2026, 1, 1))  # naive time


def test_interrupted_maintain_is_finished_by_the_next_run(tmp_path, embedder) -> None:
    from mnemir.lifecycle import LifecycleConfig
    from mnemir.memory.config import MemoryConfig

    config = MemoryConfig(lifecycle=LifecycleConfig(batch_size=2))
    with mnemir.open(tmp_path / "m", embedder=embedder, config=config) as mem:
        ids = [fact(mem, f"fact number {i}", f"attr{i}", str(i), NOW, entity=f"e{i}").id for i in range(5)]
        calls: list[str] = []

        def flaky(record: MemIR, now: datetime) -> float | None:
            calls.append(record.id)
            if len(calls) == 3:
                raise RuntimeError("checker went away")
            return 0.8

        later = NOW + 100 * DAY
        with pytest.raises(RuntimeError):
            mem.maintain(now=later, fact_checker=flaky)
        done = [i for i in ids if mem.get(i, user="alice").properties["confidence"] == 0.8]
        assert len(done) == 2  # the first batch was committed, nothing half-written after it
        report = mem.maintain(now=later, fact_checker=lambda r, n: 0.8)
        assert report.counts == {"recheck_fact": 3}
        assert mem.maintain(now=later, fact_checker=lambda r, n: 0.8).changed == 0


def test_supersede_explicitly_and_history_errors(mem: mnemir.Memory) -> None:
    old = fact(mem, "works at Acme", "employer", "Acme", LAST_YEAR)
    new = mem.supersede(old.id, {"content": {"text": "works at Globex"}, "type": "Fact",
                                 "properties": {"entity": "user", "attribute": "employer", "value": "Globex"}},
                        user="alice", now=NOW, reason="changed jobs")
    assert new.scope.user_id == "alice" and new.relations("supersedes")[0].target == old.id
    assert mem.as_of(LAST_YEAR + DAY, types=["Fact"], user="alice")[0].memory.id == old.id
    with pytest.raises(mnemir.errors.ConflictError):
        mem.supersede(old.id, {"content": {"text": "x"}, "type": "Fact"}, user="alice", now=NOW)
    with pytest.raises(NotFoundError):
        mem.history(old.id, user="bob")
    mem.delete(new.id, user="alice", hard=True, now=NOW + DAY)
    assert [h.action for h in mem.history(new.id, user=ANY)][-1] == "deleted"


@pytest.mark.parametrize("year", [1, 999])
def test_maintain_runs_at_an_instant_before_the_year_1000(mem: mnemir.Memory, year: int) -> None:
    """An instant the API accepts (any ISO date-time) is one maintenance runs at: the policies' time bounds keep
    four year digits, so the filter they build reads back (it was refused as an invalid date below 1000)."""
    mem.add("renew the library card", "Task", {"status": "pending"}, user="alice", now=NOW)
    report = mem.maintain(now=datetime(year, 6, 1, tzinfo=UTC), user="alice")
    assert report.now.year == year and report.changed == 0
