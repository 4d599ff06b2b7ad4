"""Issue 15, "who a fact is about": the subject of a sentence (a relative, a role, a named person, a pet) is the
entity of the fact; facts about different people never supersede each other; the eval's ``about`` scoring.
Sentences are invented for these tests. Real SQLite memory, real default embedder."""

from __future__ import annotations

from datetime import datetime

import pytest

import mnemir
from mnemir.eval import extraction as eval_extraction
from mnemir.understand import Extractor
from mnemir.understand.extract import Draft
from mnemir.understand.fill import fact_properties, person_mention


@pytest.mark.parametrize(("text", "key", "relation"), [
    # a relation or role word, with or without a possessive, with or without a name after it
    ("儿子下个月参加钢琴考级", "son", None),
    ("我三姨在昆明开了家米线店", "aunt", None),
    ("同事小彭下周调去成都", "小彭", "colleague"),
    ("我们组长老邱是山东人", "老邱", "boss"),
    ("楼上的赵阿姨养了两只鹦鹉", "赵阿姨", "neighbour"),
    ("我发小韩磊在银行上班", "韩磊", "friend"),
    ("我们科室新来的主任叫孙倩，以前在省医院", "孙倩", "boss"),
    ("我们家那只黑猫叫煤球，今年六岁", "煤球", "cat"),
    ("my stepdad is a retired firefighter", "stepfather", None),
    ("Grandpa turns eighty in May", "grandfather", None),
    ("The neighbours have a new puppy", "neighbour", None),
    ("My sister-in-law Greta teaches piano", "greta", "sister-in-law"),
    ("Our dog Pepper is eleven", "pepper", "dog"),
    # a name at the head of the clause, with an apposition, a group or a place beside it
    ("Omar, my line manager, is on leave until July", "omar", "boss"),
    ("Zoe from the book club is pregnant", "zoe", None),
    ("Mrs Patel next door has a new car", "patel", "neighbour"),
    ("Ingrid's allergic to shellfish", "ingrid", None),
    # reported speech is about the one who reports
    ("老邓跟我说他准备辞职了", "老邓", None),
    ("Felix told me he is moving to Leeds", "felix", None),
    # ... unless what is reported is about the user
    ("The dentist said I grind my teeth", None, None),
    ("老邓跟我说我该多休息", None, None),
    # the user, a thing, a body part after a relation word (no name)
    ("我住在苏州", None, None),
    ("我对狗毛过敏", None, None),
    ("同学聚会我不去了", None, None),
    ("I moved to Bristol last year", None, None),
])
def test_the_subject_of_the_sentence(text: str, key: str | None, relation: str | None) -> None:
    mention = person_mention(text)
    assert (mention.key if mention else None) == key
    assert (mention.relation if mention else None) == relation


def test_a_relative_keeps_body_words_out_of_the_name() -> None:
    mention = person_mention("我妈身体一直不错")
    assert mention is not None and (mention.key, mention.relation) == ("mother", None)


@pytest.mark.parametrize(("text", "entity", "attribute"), [
    ("我们组长老邱是山东人", "老邱", "hometown"),
    ("Zoe from the book club is pregnant", "zoe", "health"),
    ("我们家那只黑猫叫煤球，今年六岁", "煤球", "age"),
    ("Ingrid's allergic to shellfish", "ingrid", "allergy"),
    ("我对花粉过敏", "user", "allergy"),
    # a group of the user's
    ("我们一家都吃素", "family", "diet"),
    ("Our team is based in Dublin", "team", "residence"),
    ("我们公司下个月搬到浦东", "company", "residence"),
])
def test_the_attribute_belongs_to_the_subject(text: str, entity: str, attribute: str) -> None:
    props = fact_properties(text)
    assert (props["entity"], props["attribute"]) == (entity, attribute)


# -- the eval's scoring ---------------------------------------------------------------------------------------------
def _draft(text: str, **props: object) -> Draft:
    return Draft("Fact", text, dict(props))


def test_a_fact_about_the_user_is_right_when_its_entity_is_user() -> None:
    assert eval_extraction._about_right("user", _draft("我对花粉过敏", entity="user", attribute="allergy"))
    assert not eval_extraction._about_right("user", _draft("我表哥对花粉过敏", entity="cousin", attribute="allergy"))
    assert not eval_extraction._about_right("cousin", _draft("我表哥对花粉过敏", entity="user", attribute="allergy"))


def test_a_decision_is_about_the_speaker_unless_someone_else_decided() -> None:
    mine = _draft("We settled on the walnut table", entity="walnut table", attribute="decision")
    theirs = _draft("My sister settled on the walnut table", entity="walnut table", attribute="decision")
    assert eval_extraction._about_right("user", mine)
    assert not eval_extraction._about_right("user", theirs)


def test_a_name_and_the_relation_beside_it_both_name_the_person() -> None:
    draft = _draft("My sister-in-law Greta teaches piano", entity="greta", attribute="general")
    assert eval_extraction._about_right("greta", draft)
    assert eval_extraction._about_right("sister-in-law", draft)
    assert not eval_extraction._about_right("brother", draft)


def test_a_chinese_name_meets_its_romanised_spelling() -> None:
    pytest.importorskip("pypinyin")
    assert eval_extraction.romanised("小彭") == eval_extraction.romanised("Xiao Peng") == "xiaopeng"
    assert eval_extraction._about_right("xiaopeng", _draft("同事小彭下周调去成都", entity="小彭", attribute="general"))
    assert not eval_extraction._about_right("laopeng", _draft("同事小彭下周调去成都", entity="小彭", attribute="general"))


def test_about_is_scored_through_the_extractor(extractor: Extractor, wed: datetime) -> None:
    text = "Omar, my line manager, is on leave until July"
    row = {"id": "x", "lang": "en", "text": text, "expect": [{"type": "Fact", "about": "manager"}]}
    scores = eval_extraction.LanguageScores()
    eval_extraction.score_row(row, extractor.extract(text, now=wed).drafts, scores)
    assert scores.props["about"] == [1, 1]


# -- remember: facts about different people stand side by side --------------------------------------------------
@pytest.mark.parametrize("pair", [
    ("同事小彭住在杭州", "同学小贾住在苏州"),
    ("My colleague Ines lives in Porto", "Ravi from the climbing gym lives in Lyon"),
    ("我们家那只黑猫叫煤球，今年六岁", "我们家那只狗叫旺财，今年三岁"),
    ("Our dog Pepper is eleven", "Our cat Miso is three"),
    ("我住在南京", "我表哥住在无锡"),
])
def test_facts_about_different_people_never_supersede_each_other(mem: mnemir.Memory, wed: datetime,
                                                                   pair: tuple[str, str]) -> None:
    first, second = (mem.remember(text, user="pia", now=wed) for text in pair)
    assert [m.type for m in first.created] == ["Fact"] and not second.updated
    facts = mem.list(types=["Fact"], user="pia")
    assert len(facts) == 2 and all(f.valid_to is None for f in facts)
    assert len({f.properties["entity"] for f in facts}) == 2


@pytest.mark.parametrize(("named", "later", "name"), [
    ("My brother Tom repairs bikes in Derby", "My brother is moving to Leeds in June", "tom"),
    ("Rosa, my aunt, runs a bakery in Porto", "My aunt is allergic to walnuts", "rosa"),
    ("我表哥阿伟在成都开火锅店", "我表哥上个月搬到了杭州", "阿伟"),
])
def test_a_relation_resolves_to_the_person_once_named_with_it(mem: mnemir.Memory, wed: datetime, named: str,
                                                              later: str, name: str) -> None:
    mem.remember(named, user="quin", now=wed)
    [fact] = [m for m in mem.remember(later, user="quin", now=wed).created if m.type == "Fact"]
    assert fact.properties["entity"] == name


def test_a_relation_shared_by_two_named_people_stays_unresolved(mem: mnemir.Memory, wed: datetime) -> None:
    mem.remember("My cousin Ana teaches yoga in Madrid", user="rex", now=wed)
    mem.remember("My cousin Ben repairs boats in Cork", user="rex", now=wed)
    [fact] = [m for m in mem.remember("My cousin is visiting in May", user="rex", now=wed).created
              if m.type == "Fact"]
    assert fact.properties["entity"] == "cousin"
