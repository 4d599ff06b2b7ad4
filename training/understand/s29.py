"""The session-29 extraction batch (ids ``*-s29-*``): written by hand for the write side's largest wrong-type pairs
counted on TRAIN (docs/decisions/0105), in our own words, on topics of our own, from the ontology's type definitions;
never copied or paraphrased from an evaluation file (checked for shared runs of five words / eight Chinese characters
by a test).

    python training/understand/s29.py      # writes extraction_s29.jsonl next to this file

What it teaches:

- a to-do item written as a bare verb phrase with its details (a place, a person, an amount, a reason, a time), as
  one jots on a list, is a ``Task``: the verb comes first and nobody is told anything about how the world is;
- a statement of how things are that merely mentions a date, an amount or a duty of someone else (a schedule, a
  rule, a price, what a shop or an office does) is a ``Fact``, not the user's work;
- an intention of the user's own, said with "I'm going to", "the plan is", "I mean to", "打算", "准备" and a time, is a
  ``Plan`` (one step when told alone), not a request to the assistant and not a duty;
- a preference that changed ("these days I'd rather…", "现在更喜欢…") stays a ``Preference``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _batch import labelled_rows, write_rows

TODO_EN = [
    "Swap the bathroom extractor fan filter, the old one is grey with dust",
    "Drop the library books at the branch on Elm Road before they charge a fine",
    "Order a replacement hinge for the wardrobe door, the left one sags",
    "Transfer forty pounds to Dad for the lottery syndicate",
    "Reseal the grout around the shower tray before the weekend guests arrive",
    "Chase the garage about the MOT certificate they still haven't emailed",
    "Sign Noor up for the Saturday swimming lessons at the leisure centre",
    "Repot the lemon tree into the big terracotta pot",
    "Return the faulty kettle to the shop with the receipt",
    "Cancel the magazine subscription before it renews in April",
    "Buy a birthday card and a book token for Uncle Ray",
    "Descale the coffee machine, it keeps tripping the warning light",
    "Photocopy both passports for the visa folder",
    "Collect the dry cleaning from the place by the station on Thursday",
    "Book the chimney sweep before we light the first fire of the season",
    "Pay the window cleaner the twelve pounds we owe him",
    "Update the emergency contact form at the nursery with the new mobile number",
    "Label the freezer boxes with dates so nothing gets forgotten",
    "Post the signed tenancy renewal back to the letting agent",
    "Pick up a spare charger for the tablet on the way home",
    "Defrost the chest freezer in the garage this weekend",
    "Ring the vet to move Pepper's booster jab to next week",
    "Get three quotes for fixing the cracked patio slabs",
    "Send a handwritten card to everyone who gave us a wedding gift",
    "Top up the gas meter key at the corner shop",
]

TODO_ZH = [
    "把阳台的旧花盆清理掉，周末有人来收废品",
    "去银行把老卡的密码重置一下",
    "给奶奶买一副新的老花镜，度数比原来高一点",
    "把车开去做个四轮定位，方向盘有点偏",
    "在网上预约下个月的牙齿洗牙",
    "把女儿的接种证带去卫生站补个章",
    "给物业交第三季度的停车费",
    "把冬天的被子拿出来晒一晒",
    "周六之前把书房的窗帘换成遮光的",
    "联系房东修一下漏水的厨房水龙头",
    "把旧手机里的照片导到硬盘上",
    "下班顺路去药店买点创可贴和碘伏",
    "续一下健身卡，月底就过期了",
    "把搬家用的纸箱退回给快递站",
    "打电话问问驾校下周还能不能约上科目二",
]

FACTS_EN = [
    "The recycling lorry only comes every other Tuesday on our street",
    "Our block's lift is being repaired and stays shut till the 30th",
    "The council charges sixty pounds a year for garden waste collection",
    "The corner bakery sells out of sourdough by ten most Saturdays",
    "My gym shuts at eight on Sundays instead of ten",
    "The kids' school breaks up for half term on the thirteenth",
    "Parking on our road is permit only between nine and five",
    "The boiler service contract covers one visit a year and parts up to two hundred pounds",
    "The train to Leeds takes two hours and ten minutes from here",
    "The allotment society wants plots weeded before the spring inspection",
    "My sister's flat is on the fourth floor with no lift",
    "The pharmacy needs forty-eight hours to make up a repeat prescription",
    "Our broadband contract ends in September and the price goes up after that",
    "The dentist charges a fee if you cancel with less than a day's notice",
    "The swimming pool is closed every Monday morning for cleaning",
    "Tom's landlord requires two months' notice before moving out",
    "The museum is free on the first Friday of each month",
    "Our street party is always held on the last Sunday in June",
]

FACTS_ZH = [
    "我们小区的快递柜超过两天就要收保管费",
    "楼下的菜市场每周一上午休市",
    "公司规定年假要提前一周在系统里申请",
    "孩子学校下午四点半放学，周三是三点",
    "我们这里的地铁末班车是晚上十一点十分",
    "医院的专家号每周二早上八点放出来",
    "这房子物业费一个月三百出头",
    "我表哥的婚礼定在国庆节后的第一个周六",
    "那家干洗店洗一件大衣要四十五块",
    "图书馆的书最多可以借三十天，能续借一次",
]

PLANS_EN = [
    "When spring comes I'll start riding my bike to work a couple of days a week",
    "The plan is to paint the spare room in May and turn it into a study",
    "I mean to learn enough Italian for our trip by the autumn",
    "Next year I'm planning to run the half marathon in my home town",
    "Over Easter we'll take the car north along the coast, stopping at little harbour towns",
    "I'm thinking of taking a pottery evening class after Christmas",
    "This summer I intend to clear the loft and sell what we don't need",
    "I'm going to cook a proper Sunday roast for the in-laws next month",
    "Once the exams are over I plan to volunteer at the animal shelter",
    "We intend to swap the car for an electric one when the lease ends",
    "I'm going to try growing tomatoes on the balcony this year",
    "The idea is to save up and visit Japan in cherry blossom season",
]

PLANS_ZH = [
    "我打算今年暑假带爸妈去青岛住一个礼拜",
    "准备下半年开始学游泳，先报个成人班",
    "过完年我打算把客厅的旧沙发换掉",
    "明年我想考个会计证，下个月先买教材",
    "我们准备五一的时候回老家看看外婆",
    "打算等天暖和了每天早上去公园跑步",
]

PREFS_EN = [
    "These days I'd rather have tea in the afternoon than another coffee",
    "I used to love horror films but lately I prefer a gentle comedy",
    "I've gone off spicy food since the summer, mild is better for me now",
    "I'm more of a morning swimmer now than an evening one",
]

PREFS_ZH = [
    "现在更喜欢坐高铁，不太想坐飞机了",
    "以前爱喝冰美式，最近改喝热拿铁了",
    "最近更想周末在家待着，不太想出去逛街",
]


def rows() -> list[dict[str, object]]:
    groups: list[tuple[str, list[str], dict[str, object]]] = [
        ("en", TODO_EN, {"type": "Task"}),
        ("en", FACTS_EN, {"type": "Fact"}),
        ("en", PLANS_EN, {"type": "Plan"}),
        ("en", PREFS_EN, {"type": "Preference"}),
        ("zh", TODO_ZH, {"type": "Task"}),
        ("zh", FACTS_ZH, {"type": "Fact"}),
        ("zh", PLANS_ZH, {"type": "Plan"}),
        ("zh", PREFS_ZH, {"type": "Preference"})]
    return labelled_rows("s29", groups)


if __name__ == "__main__":
    write_rows("extraction_s29.jsonl", rows())
