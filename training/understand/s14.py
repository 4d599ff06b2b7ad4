"""The session-14 extraction batch (ids ``*-s14-*``): written by hand for the end-to-end collapse work
(docs/decisions/0040), in our own words, on topics of our own; never copied or paraphrased from an evaluation file.

    python training/understand/s14.py      # writes extraction_s14.jsonl next to this file

What it teaches (the kinds of utterance the shipped extractor misread, in general shapes):

- a to-do item told as a bare verb phrase, with the details a real one carries (an amount, a shop, a name, a
  model number, a date) is a Task, not a Fact ("Pay the £60 deposit to ...", "在…买…", "约…师傅上门…");
- what someone else said, ruled or requires ("the dentist said …", "教练说…要…", "the venue needs … by …") is a
  Fact: a modal verb inside reported speech is no task of the user's;
- a regular schedule or a standing arrangement ("the bins go out on Tuesday nights", "每月5号发工资") is a Fact,
  not a Plan;
- an outburst (an event told with the feeling it caused: "…, I'm livid", "…，气死我了") is an EmotionalState.
"""

from __future__ import annotations

import json
from pathlib import Path

TASKS_EN = [
    "Pay the £60 deposit for the village hall to Mrs Okafor",
    "Order two 40-litre bags of peat-free compost from Greenway Garden Centre",
    "Transfer $250 to Jonah for the lake cabin weekend",
    "Book the Subaru in at Kwik Fit for a wheel alignment",
    "Return the Bosch drill to Aidan before his move on the 18th",
    "Email Professor Lindgren the second draft of chapter three",
    "Renew the Adobe licence for the design team, 12 seats",
    "Collect the framed print from Harper & Lowe on Station Road",
    "Pick up Dad's repeat prescription from Boots on Thursday",
    "Buy a 64GB SD card for the trail camera",
    "Cancel the Sky Sports add-on before the next billing date",
    "Drop the signed lease off at the Carrow Lettings office",
    "Print 30 copies of the agenda for Monday's residents' meeting",
    "Fill in the form to claim the single-occupier discount on our rates",
    "Top up the Oyster card with £40",
    "Send the wedding photographer the shot list and the venue address",
    "Measure the alcove for the new 180cm bookcase",
    "Register the twins for the under-9s summer football camp",
    "Ask Priyanka in accounts for the Q3 expense codes",
    "Swap the Tuesday shift with Declan so I can make the hospital appointment",
    "Fix the leaking flush valve in the upstairs toilet",
    "Sign the permission slip for Ava's trip to the science museum",
    "Replace the smoke alarm battery in the hallway",
    "Reserve a table for six at Ottavio's for Saturday at 7",
    "Get three quotes for rewiring the garage",
    "Move the £1,500 from savings into the joint account before rent goes out",
    "Hand in the laptop and badge to IT on my last day",
    "Post the eBay parcel to the buyer in Leeds, tracked",
    "Call British Gas about the estimated meter reading",
    "Write Tomasz his reference letter before Friday",
    "Defrost the chest freezer in the garage",
    "Upload the receipts for March to the expenses portal",
    "Check whether the Peugeot's MOT runs out in June",
    "Re-pot the fiddle-leaf fig into the 30cm terracotta pot",
    "Buy a birthday card and a bottle of Rioja for Gemma",
    "Clear the gutters on the north side before the rain sets in",
    "Apply for the 16-25 railcard before booking the Edinburgh trip",
    "Chase the refund from Currys for the faulty kettle",
    "Set up the standing order of £75 a month to the climbing club",
    "Sort out the spare room for Auntie Rose's visit next weekend",
]
TASKS_ZH = [
    "在拼多多给阳台买一个晾衣架，要能折叠的",
    "交这学期的校车费1200元",
    "约空调师傅周六上门清洗两台挂机",
    "给物业打电话说一下楼道灯坏了",
    "把上个月的打车发票贴好交给财务小刘",
    "在12306上抢国庆回成都的高铁票",
    "去社区医院给奶奶拿降压药，一次拿三个月的",
    "跟房东续签一年合同，租金谈到4800",
    "给儿子报名周六上午的围棋班",
    "把旧电动车挂到闲鱼上卖掉",
    "预约下周三的驾照体检",
    "往饭卡里充五百块",
    "给李老师发一下孩子的请假条",
    "在天猫超市订一箱牛奶和两袋大米",
    "去银行把定期存款转成大额存单",
    "联系搬家公司，问问周日搬家要多少钱",
    "给车子换四条米其林轮胎",
    "把喜帖快递给在外省的表舅一家",
    "约牙医洗牙，顺便看看那颗智齿",
    "在公众号上预约市博物馆周末的票",
    "给妈妈的手机换个大字体，再装个微信",
    "去营业厅把宽带升级到500兆",
    "整理家里的旧书，捐给小区图书角",
    "找装修队报价，厨房和卫生间一起翻新",
    "帮我查一下下个月去青岛的机票",
    "给公司年会准备一个三分钟的节目",
    "把护照送去出入境大厅办加急签注",
    "申请公积金提取，用来还房贷",
    "给阳台的多肉换土，顺便把枯叶剪掉",
    "交车险，今年换平安试试",
    "带上出生证明去给小女儿办落户",
    "买两张周六晚上的话剧票，坐中间排",
    "跟王总约个时间汇报第二季度的数据",
    "把洗衣机的排水管换一根长一点的",
    "给老家的爷爷寄两盒茶叶",
    "在京东下单一个二十寸的行李箱",
    "报名下个月的半程马拉松，报名费一百二",
    "找人把客厅的墙重新刷一遍",
    "给猫约绝育手术，宠物医院说周二有空",
    "把年假申请提交给部门经理",
]
REPORTED_EN = [
    "The dentist said I have to wait two weeks before the crown goes on",
    "My physio says I shouldn't run more than 5k until the knee settles",
    "The venue needs the final guest numbers by the 3rd of May",
    "According to the landlord, tenants must get permission before painting",
    "The school says pupils have to wear black shoes, no trainers",
    "Our accountant said the self-assessment has to be filed online this year",
    "The mechanic told me the brake pads need replacing within a thousand miles",
    "The airline says cabin bags must be under 7kg on that route",
    "Hannah said the committee has to approve any spend over £500",
    "The vet said Rufus can't have anything to eat after 8pm the night before",
    "The gym's rule is that you need an induction before using the free weights",
    "My manager said all leave over five days needs two weeks' notice",
    "The pharmacist said to take the antibiotics with food",
    "The club requires a medical certificate for anyone over 60",
    "The council says green bins are only emptied every other Friday",
    "The letting agent told us the deposit is held by the DPS",
    "Coach Mendes wants everyone at the ground by 9:15 on match days",
    "The surveyor said the mould behind the wardrobe comes from a blocked air brick",
    "The bank says transfers over £10,000 need a call-back to confirm",
    "The optician said I'll need new lenses in about a year",
]
REPORTED_ZH = [
    "医生说我这个月都不能提重物",
    "教练说考前每天至少要练一个小时倒库",
    "房东说房子里不能养大型犬",
    "老师说下周一开始要穿冬季校服",
    "物业说装修只能在早上八点到晚上六点之间",
    "中介说首付至少要付三成",
    "会计说年底之前发票都要交齐",
    "律师说合同上必须写清楚违约金",
    "营养师说我每天蛋白质要吃够八十克",
    "领导说以后报销要先走线上审批",
    "驾校说科目三要提前一周约考",
    "医生说孩子的疫苗要间隔一个月再打",
    "店员说这款手机保修期是两年",
    "社区通知说周三下午要停水四个小时",
    "签证中心说材料必须是原件加复印件",
    "牙医说拔完牙二十四小时内不能刷那一边",
    "健身房规定进场必须穿运动鞋",
    "导游说景区下午五点就停止入园了",
    "学校规定家长只能在校门口接孩子",
    "保险公司说理赔要在三十天内提交材料",
]
SCHEDULE_EN = [
    "The bins go out on Tuesday nights",
    "Choir practice is every Wednesday at 7:30 in the church hall",
    "My salary lands on the 28th of each month",
    "The farmers' market runs on the first Sunday of the month",
    "Swimming lessons for Leo are Saturdays at 10 at the leisure centre",
    "The office is closed on bank holidays",
    "Our book club meets at Jo's flat every third Thursday",
    "The cleaner comes fortnightly on Mondays",
    "The last bus back from town leaves at 11:40",
    "Parents' evening is always the second week of term",
    "The pool's adult-only lane swim is 6 to 8 every morning",
    "Dad's dialysis is Mondays, Wednesdays and Fridays",
    "The library closes at 5 on Saturdays",
    "Our standup is at 9:30 every weekday",
    "The mortgage leaves our account on the first working day",
]
SCHEDULE_ZH = [
    "每月五号发工资",
    "小区垃圾每天晚上七点到九点收",
    "女儿的钢琴课是每周六下午三点",
    "单位食堂中午十一点半开饭",
    "社保每年七月调整一次基数",
    "老年大学的书法班每周二上午上课",
    "楼下超市晚上十点关门",
    "公司每周一早上九点开例会",
    "房租是每个季度初交",
    "我爸每个月十号去医院复查",
    "地铁末班车是晚上十一点",
    "物业费每年三月份统一收",
    "儿子的足球训练在周四下午放学后",
    "医院周末只有急诊",
    "我们合唱团每周日晚上在文化馆排练",
]
OUTBURSTS_EN = [
    "The courier left my parcel in the rain and it's ruined, I'm fuming",
    "My flatmate ate the cake I made for Mum's birthday, I could scream",
    "Three hours on hold with the bank and then they hung up on me, absolutely livid",
    "The builder walked off the job with half the kitchen ripped out, I'm beside myself",
    "Failed the driving test a second time on a roundabout, I'm gutted",
    "Someone keyed the whole side of my car overnight, I'm so angry I'm shaking",
    "The school lost Mia's coursework and now she has to redo it, I'm furious",
    "They gave my seat away at the concert because the app crashed, I'm seething",
    "My brother announced the engagement at Gran's funeral, I was mortified",
    "The promotion went to someone who joined six months ago, I'm crushed",
    "Got my exam results and passed everything, I'm over the moon",
    "The hospital cancelled Dad's operation for the third time, I'm at my wits' end",
    "My landlord let himself into the flat while I was out, I feel so violated",
    "The printer jammed ten minutes before the pitch, I was panicking",
    "My best friend didn't turn up to my leaving do, honestly I'm hurt",
    "Tripped on stage during the school play and the whole hall laughed, I wanted to disappear",
    "Picked up the keys to our first house today, I keep grinning like an idiot",
    "The airline lost my suitcase with the wedding suit inside, I'm tearing my hair out",
    "The neighbour's extension blocks all our light now, it makes my blood boil",
    "My article got rejected with a one-line email, feeling pretty low",
]
OUTBURSTS_ZH = [
    "快递员把我的包裹扔在门口淋湿了，气死我了",
    "主管开会时又点名说我拖后腿，我真的委屈得想哭",
    "排了两个小时队结果说号没了，我快气炸了",
    "装修师傅把地砖铺歪了还不认账，我火大得很",
    "考研又差三分没过线，心里难受死了",
    "车停在楼下被人划了一长道，我气得一晚上没睡",
    "孩子的作业本被老师弄丢了，还怪孩子没交，我真是服了",
    "面试最后一轮被刷了，整个人都蔫了",
    "房东突然说下个月要收回房子，我慌得不知道怎么办",
    "年终奖居然只发了一个月，太让人寒心了",
    "闺蜜把我的秘密告诉了别人，我心里特别难过",
    "终于收到录取通知书了，开心得跳起来",
    "托运的箱子到现在还没找到，里面全是给家人的礼物，我急死了",
    "挤公交的时候钱包被人摸走了，我懊恼得不行",
    "婆婆又当着亲戚的面说我不会做饭，我憋了一肚子火",
    "体检报告说血糖偏高，吓得我一下午都心神不宁",
    "儿子第一次考了满分，我高兴得合不拢嘴",
    "邻居家装修从早敲到晚，吵得我头都要炸了",
    "网购的沙发送来是坏的，商家还不给退，我真是气不打一处来",
    "练了半年的舞蹈比赛第一轮就被淘汰了，好失落",
]

#: a second round, after the first retraining: Chinese to-do items that open with a place, a verb of arranging or
#: paying ("在…下单", "交…费", "约…", "报名…"), and statements of fact that carry a date, a price or a duty set by
#: someone else (a quote, a start date, a contact, what a contract says), which the model still read the other way
TASKS_ZH_2 = [
    "在淘宝上给爸爸买一个颈椎按摩仪",
    "在美团上订周五晚上的火锅，六个人",
    "用小程序挂下周一皮肤科的专家号",
    "在网上缴这个季度的水电燃气费",
    "交女儿舞蹈班下学期的学费三千六",
    "交物业费和停车费，一共两千一",
    "交党费，这个月记得别漏了",
    "约开锁师傅明天上午来换锁芯",
    "约家政阿姨周末来做一次深度保洁",
    "约中介周六下午看那套两居室",
    "报名社区的急救培训课",
    "报名公司组织的羽毛球比赛，混双",
    "报名成人高考，专业选会计",
    "下单两桶食用油和一箱鸡蛋",
    "借邻居家的梯子把吊灯换了",
    "请张阿姨这周帮忙接一下孩子",
    "请同事帮我代一节周四的课",
    "订一个八寸的蛋糕，写上生日快乐",
    "买一台空气净化器放在儿童房",
    "退掉那双码数不对的运动鞋",
    "续交下一年的宽带费",
    "办一张新的公交卡给奶奶用",
    "修一下卫生间漏水的水龙头",
    "问问4S店保养要不要提前预约",
    "打印三份简历，带去周三的面试",
]
FACTS_EN_2 = [
    "Marlow Glazing quoted £1,150 for the two bay windows",
    "The new job starts on the 2nd of September",
    "The claims handler for the flood is Ms Osei, extension 4471",
    "The tenancy agreement says the deposit is returned within ten days",
    "The kids' school breaks up on the 19th of July",
    "Registration for the 10k closes on Friday at midnight",
    "The builder's invoice came to £3,480 including VAT",
    "Our broadband contract ends in November",
    "The boiler warranty covers parts for five years",
    "The plumber can't come until the week after next",
    "My passport expires in March 2027",
    "The wedding venue holds 120 seated guests",
    "The hire car has to be back at the depot by 6pm on Sunday",
    "The course fee is $890, payable in two instalments",
    "Leo's nursery fees went up to £62 a day",
    "The council's deadline for objections to the planning application is the 14th",
    "The vet's out-of-hours number is on the fridge",
    "Refunds take five to seven working days to show up",
    "The van is leased through to December next year",
    "The sofa delivery window is between 8am and 1pm on Thursday",
]
FACTS_ZH_2 = [
    "装修公司报价卫生间翻新一万二",
    "新单位九月一号报到",
    "负责理赔的是小王，电话在我手机里存着",
    "租房合同上写着押金退房后七天内退还",
    "孩子学校七月十号开始放暑假",
    "马拉松报名周五晚上十二点截止",
    "搬家公司说周日上午八点到",
    "宽带合约到今年十一月到期",
    "热水器保修期是三年",
    "水电工下下周才有空过来",
    "我的身份证明年三月到期",
    "婚宴酒店的大厅能坐二十桌",
    "租的车周日晚上六点前要还到门店",
    "驾校学费是四千二，分两次交",
    "幼儿园的伙食费这学期涨到每天十五块",
    "规划公示的反馈截止日期是十四号",
    "退款一般三到五个工作日到账",
    "房贷利率从下个月起降到百分之三点五",
    "快递员说包裹明天下午送到",
    "体检中心早上七点半开始抽血，要空腹",
]


def rows() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    groups = [("en", TASKS_EN, {"type": "Task", "status": "pending"}), ("zh", TASKS_ZH, {"type": "Task", "status": "pending"}),
              ("en", REPORTED_EN, {"type": "Fact"}), ("zh", REPORTED_ZH, {"type": "Fact"}),
              ("en", SCHEDULE_EN, {"type": "Fact"}), ("zh", SCHEDULE_ZH, {"type": "Fact"}),
              ("en", OUTBURSTS_EN, {"type": "EmotionalState"}), ("zh", OUTBURSTS_ZH, {"type": "EmotionalState"}),
              ("zh", TASKS_ZH_2, {"type": "Task", "status": "pending"}), ("en", FACTS_EN_2, {"type": "Fact"}),
              ("zh", FACTS_ZH_2, {"type": "Fact"})]
    counters = {"en": 0, "zh": 0}
    for lang, texts, expect in groups:
        for text in texts:
            counters[lang] += 1
            out.append({"id": f"{lang}-s14-{counters[lang]:03d}", "lang": lang, "speaker": "user", "text": text,
                        "expect": [dict(expect)]})
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("extraction_s14.jsonl")
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows():
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows())} rows -> {path}")
