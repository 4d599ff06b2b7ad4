"""Cue words (zh + en) shared by the classifier's lexical features and the property rules."""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["AMBIGUOUS_EMOTION_WORDS", "CUES", "CUE_NAMES", "EMOTION_WORDS", "INTENSIFIERS", "SOFTENERS", "cue_vector",
           "find_emotion", "language_of", "main_language"]

_CJK = re.compile(r"[\u4e00-\u9fff]")


_LATIN = re.compile(r"[A-Za-z]")


def language_of(text: str) -> str:
    """'zh' when the text has Chinese characters, else 'en'."""
    return "zh" if _CJK.search(text) else "en"


@lru_cache(maxsize=4096)  # asked per candidate of every recall, and per pair of preferences compared
def main_language(text: str) -> str | None:
    """The script a text is mostly written in ('zh' or 'en'), or None when it has no letters ("2027-05"): unlike
    :func:`language_of`, a name in the other script ("Lunch with 老王 at noon") does not make a text Chinese."""
    han, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    if not han and not latin:
        return None
    return "zh" if han * 3 >= latin else "en"


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


#: named cue groups; each is one lexical feature of the classifier
CUES: dict[str, re.Pattern[str]] = {
    "request": _rx(r"帮我|帮忙|请你|麻烦|记得|提醒我|别忘了|给我|替我|你(?:去|来)|安排|\b(?:help me|please|can you|could you|"
                   r"would you|remind me|don'?t (?:let me )?forget|make sure|set up|book|schedule|order|arrange)\b"),
    "obligation": _rx(r"要|得|需要|必须|该|打算|准备|\b(?:need to|have to|has to|must|should|gotta|got to|plan to|"
                      r"going to|todo|to-?do)\b"),
    # the Task / Plan boundary: something the user has to do (an obligation, a duty someone gave them, a due date)
    # against something the user means to do (an intention, an arrangement of their own)
    "must": _rx(r"得|必须|需要|不得不|该|应该(?!是|会|不会)|要(?:记得|交|赶|还|续|办|去趟)|让我|叫我|要我|截止|到期|之前|以前|"
                r"\b(?:need to|needs to|have to|has to|had better|must|should|ought to|gotta|got to|'ve got to|supposed to|"
                r"told me to|asked me to|wants me to|remind me|don'?t let me forget|due|deadline|by (?:the )?(?:end|next|"
                r"tomorrow|tonight|noon|monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d{1,2}(?:st|nd|rd|th)))\b"),
    "intend": _rx(r"打算|准备|计划|想(?:要|去|先|把|学|试)|决定要|考虑|等.{1,12}(?:再|就)|从.{1,6}(?:起|开始)|"
                  r"\b(?:going to|gonna|i'?ll|we'?ll|i will|we will|plan(?:ning)? to|intend|thinking (?:of|about)|"
                  r"want to|aim(?:ing)? to|hoping to|hope to|once|from next|starting|this (?:summer|winter|spring|"
                  r"autumn|fall|year))\b"),
    "like": _rx(r"喜欢|爱(?:吃|喝|看|听|玩)|偏爱|最爱|钟爱|习惯|偏好|更(?:喜欢|爱)|\b(?:like|love|enjoy|prefer|favou?rite|"
                r"fan of|into|adore|fond of|go-to|usually (?:drink|eat|take|get|order))\b"),
    "dislike": _rx(r"不喜欢|讨厌|受不了|不爱|不(?:吃|喝)|反感|烦(?:透|死)了|不太喜欢|不要|别给我|\b(?:hate|dislike|"
                   r"don'?t (?:like|enjoy|eat|drink|want)|can'?t stand|not a fan|never (?:eat|drink)|avoid|detest)\b"),
    "emotion": _rx(r"开心|高兴|难过|伤心|生气|气死|愤怒|焦虑|担心|紧张|害怕|烦躁|郁闷|崩溃|累|疲惫|兴奋|激动|沮丧|失落|"
                   r"感动|委屈|孤独|压力|心累|绝望|恼火|火大|失望|惊讶|感激|放松|平静|尴尬|\b(?:happy|sad|angry|"
                   r"furious|mad|anxious|worried|nervous|scared|afraid|frustrated|annoyed|upset|tired|exhausted|"
                   r"excited|thrilled|stressed|depressed|lonely|overwhelmed|relieved|grateful|embarrassed|"
                   r"heartbroken|miserable|pissed|burned out|burnt out|feel(?:ing)?|fed up|disappointed)\b"),
    "self_fact": _rx(r"我(?:是|叫|住|在|今年|的|家|有|对|老家|来自|属|毕业|工作|女儿|儿子|老婆|老公|妈|爸)|\b(?:i am|i'm|"
                     r"my|i live|i work|i have|i was born|i grew up|i moved|i'm from|i come from|i own|i'm allergic)\b"),
    # sequence words; a numbered step, phase or leg, spelled or in digits ("step one of…", "phase two:", "下一步",
    # "第三阶段"), is one step of a larger plan, whatever deadline it carries (docs/decisions/0099)
    "plan_marker": _rx(r"先|然后|再|接着|之后|最后|第一步|第二步|步骤|首先|其次|第[一二三四五六七八九十\d]+(?:步|阶段|期)|下一步|"
                       r"头一步|\b(?:first|then|after that|next|finally|step \d|afterwards|followed by|lastly|plan is|"
                       r"(?:step|phase|stage|part|leg) (?:one|two|three|four|five|[1-5])|(?:first|next|second|third|last|"
                       r"final) (?:step|phase|stage|leg))\b"),
    "done": _rx(r"已经|(?:做|写|弄|干|办|交|看|改|发|忙|搞)完|完成|搞定|弄好|办好|交了|提交了|订好|买好|发了|付了|结束了|好了|\b(?:done|finished|completed|"
                r"booked|submitted|sent|paid|taken care of|wrapped up|sorted|already|handled)\b"),
    "progress": _rx(r"正在|在(?:弄|做|写|办|改|跑)|进行中|一半|开始(?:做|弄|写)了|快(?:好|完)了|\b(?:working on|started|"
                    r"halfway|in progress|making progress|almost done|underway|on it)\b"),
    "abandon": _rx(r"算了|不用了|不要了|取消|放弃|别管|不做了|不去了|没戏|黄了|\b(?:forget (?:about )?(?:it|the)|"
                   r"cancel|never mind|nevermind|not happening|give up|gave up|drop (?:it|the)|scrap|no longer need|"
                   r"called off|fell through)\b"
                   # a move to a later time is a report on work already planned, as a cancellation is
                   # (docs/decisions/0099)
                   r"|推迟|延后|延期|往后推|挪到|推到|缓一缓|先放一放|\b(?:postpone[ds]?|postponing|put (?:it |that |this )?off|"
                   r"reschedul\w*|push(?:ed|ing)? (?:it |that |this |the [\w' -]{1,30})?(?:back|to)|"
                   r"mov(?:e|ed|ing) (?:it|that|this|the [\w' -]{1,30}) to|can wait|delay(?:ed|ing)?)\b"),
    "frame": _rx(r"会议|开会|面试|谈判|教程|教我|讨论|复盘|调试|头脑风暴|旅行|出差|咨询|看病|\b(?:meeting|interview|"
                 r"negotiation|tutorial|teach me|lesson|standup|stand-up|brainstorm|debug(?:ging)?|retro|"
                 r"workshop|we are (?:now )?(?:in|doing)|let'?s (?:do|start|treat|pretend)|session|mode|role)\b"),
    "context_set": _rx(r"接下来|现在(?:我们|开始)|这(?:次|个)(?:会议|讨论|对话)|我们(?:在|来)|咱们|从现在起|\b(?:from now on|for this|"
                       r"for the rest|right now we|we'?re|let'?s)\b"),
    "question": _rx(r"[?？]|吗|呢|什么|怎么|为什么|谁|哪|几|多少|是不是|有没有|\b(?:what|how|why|when|where|who|which|"
                    r"do you|did i|is it|are there|can i)\b"),
    "ack": _rx(r"^(?:好的?|嗯+|行|可以|没问题|收到|明白|知道了|谢谢|多谢|感谢|你好|哈+|再见|拜拜|对|是的|不用|好吧|ok|okay|"
               r"thanks?|thank you|got it|sure|cool|great|nice|hi|hello|hey|bye|yes|yeah|yep|no|nope|alright|lol|"
               r"sounds good|will do|understood|noted)\b"),
    "first_person": _rx(r"我|\b(?:i|me|my|mine)\b"),
    "negation": _rx(r"不|没|别|\b(?:not|no|never|don'?t|doesn'?t|didn'?t|isn'?t|won'?t|can'?t)\b"),
    "correction": _rx(r"其实|更正|纠正|搞错|说错|记错|弄错|看错|听错|写错|打错|算错|记混|^不对|不是.{1,12}而是|不是.{1,12}是|"
                      r"是.{1,15}[，,]\s*不是|改成|"
                      r"\b(?:actually|correction|i meant|not .{1,20} but|i was wrong|scratch that|my mistake|i mixed up|"
                      r"typo|misread|misheard|misremembered|got (?:it|that|them|the \w+) (?:wrong|mixed up|muddled)|"
                      r"(?:earlier|before|previously),? i (?:said|told you|mentioned)|i (?:said|told you) .{1,40}(?:earlier|before)|"
                      r"sorry,? (?:it'?s|i meant|that'?s|the|my|it)|update:|wait,? (?:no|it'?s)|"
                      r"no,? (?:it'?s|it was)|, not (?:the |on |in |at )?\w+)\b"),
    "fact_verb": _rx(r"是|在|有|叫|住|位于|属于|开|\b(?:is|are|was|has|have|lives?|works?|located|born|costs?|opens?|"
                     r"closes?|takes?)\b"),
    "third_party": _rx(r"他|她|我(?:妈|爸|老婆|老公|女儿|儿子|朋友|同事|老板|哥|姐|弟|妹)|\b(?:he|she|they|his|her|"
                       r"their|my (?:wife|husband|mom|dad|mother|father|son|daughter|friend|boss|colleague|sister|brother)"
                       r")\b"),
    "passive_done": _rx(r"\b(?:is|are|was|were|been|got|'s|has been|have been)\s+(?:all\s+|finally\s+|already\s+)?"
                        r"(?:\w+ed|done|sent|paid|sold|taken|written|made|gone|built|set up)\b|好了|完了|过了|掉了|上了"),
    "feeling": _rx(r"心情|感觉|情绪|觉得.{0,4}(?:难|好|累|烦)|\b(?:feel|feeling|felt|mood|emotional)\b"),
    "preference_q": _rx(r"口味|偏好|习惯|喜欢|爱(?:吃|喝|看|听|去)|讨厌|受不了|\b(?:favou?rite|prefer|like|into|taste|enjoy|"
                        r"hate|can'?t stand|picky|habits?)\b"),
    "list_q": _rx(r"哪些|还有|清单|待办|没(?:做|完成|处理|干|弄)|快到期|截止|\b(?:list|left|pending|due|deadlines?|"
                  r"to-?dos?|outstanding|open|unfinished|agenda|remaining|still (?:(?:need|have|got) to|to do|owe|"
                  r"(?:left|pending|open|outstanding)))\b"),
    "status_q": _rx(r"了吗|了没|没有$|好了没|怎么样了|进展|到哪了|办成|\b(?:yet|status|progress|how far (?:along|have|has|had|are|did|is it|we)|did (?:you|i|we|the)|"
                    r"has (?:the|my)|is (?:the|my) .{1,30}(?:done|booked|ready|finished|renewed|sent|paid))\b"),
    "why_past": _rx(r"为什么|为啥|什么事让|上次|之前|那天|那次|\b(?:why|what made|last time|that day|that time|before)\b"),
    "plan_q": _rx(r"步骤|计划|下一步|第.步|流程|顺序|分几步|\b(?:steps?|plan|next|order|process|after .{1,20}what)\b"),
    "frame_q": _rx(r"会议|场景|角色|规则|主题|议题|培训|身份|\b(?:session|meeting|role|rules|topic|agenda|mode|setting|"
                   r"training|playing)\b"),
    "general_q": _rx(r"一切|所有|都记得|了解多少|说过(?:哪些|什么)|\b(?:everything|all you know|remember about|recall about|"
                     r"what have i (?:told|said)|know about me)\b"),
    # hedges: the speaker is not sure (a guess, a suspicion, a likelihood); what follows is a Hypothesis, not a Fact
    "hedge": _rx(r"可能|也许|或许|大概|估计|应该是|我猜|猜测|好像|似乎|说不定|八成|恐怕|没准|不确定|不一定|我怀疑|怀疑是|看样子|看来|"
                 r"\b(?:maybe|perhaps|probably|possibly|might|may have|may be|i think|i guess|i suspect|i reckon|"
                 r"i'?m not sure|not sure|could be|seems|looks like|likely|unlikely|my guess|i bet|i wonder|apparently)\b"),
    # decisions: one option was chosen over others ("went with", "决定", "还是…吧")
    "decision": _rx(r"决定|定了|定下来|敲定|拍板|选了|就选|选(?:的|定)?[^，,。！!？?不没好完]{1,8}?了|最后(?:还是|选|定|买|报|订|用)|最终|还是.{1,15}吧|"
                    r"\b(?:decided|decide to|decision|went with|go(?:ing)? with|settled on|opted for|chose|chosen|"
                    r"picked|we'?ll take|i'?ll take|in the end|final answer|made up my mind)\b"),
    "urgency": _rx(r"紧急|尽快|马上|立刻|赶紧|急|\b(?:asap|urgent|urgently|right away|immediately|as soon as|quickly|"
                   r"priority)\b"),
}
#: the length buckets cue_vector adds after the cue groups
_LENGTH_BUCKETS = ("short", "long")
#: the name of each value cue_vector returns, in order (the models' feature layout is built from these)
CUE_NAMES: tuple[str, ...] = (*CUES, *_LENGTH_BUCKETS)


def cue_vector(text: str) -> list[float]:
    """One 0/1 feature per cue group, plus length buckets (named by ``CUE_NAMES``).

    The emotion lexicon is deliberately not a feature: tried as one, the model leaned on it and lost the feelings
    said in words the lexicon lacks (dev split, emotion recall 0.71 -> 0.50); it types emotions instead."""
    values = [1.0 if pattern.search(text) else 0.0 for pattern in CUES.values()]
    n = len(text)
    values += [1.0 if n <= 6 else 0.0, 1.0 if n > 40 else 0.0]
    return values


#: extra emotion words (mapped to the ontology's canonical emotion types)
EMOTION_WORDS: dict[str, str] = {
    # zh
    "气死": "anger", "气炸": "anger", "生气": "anger", "愤怒": "anger", "火大": "anger", "恼火": "anger", "发火": "anger",
    "受不了": "frustration", "烦死": "frustration", "烦透": "frustration", "烦躁": "frustration", "郁闷": "frustration",
    "无语": "frustration", "崩溃": "frustration", "抓狂": "frustration", "心烦": "frustration", "头疼": "frustration",
    "难过": "sadness", "伤心": "sadness", "沮丧": "sadness", "失落": "sadness", "委屈": "sadness", "孤独": "sadness",
    "失望": "sadness", "想哭": "sadness", "心碎": "sadness", "绝望": "sadness", "低落": "sadness", "难受": "sadness",
    "焦虑": "anxiety", "担心": "anxiety", "紧张": "anxiety", "压力": "anxiety", "不安": "anxiety", "慌": "anxiety",
    "睡不着": "anxiety", "忐忑": "anxiety",
    "害怕": "fear", "恐惧": "fear", "吓": "fear",
    "开心": "joy", "高兴": "joy", "快乐": "joy", "太好了": "joy", "幸福": "joy", "爽": "joy", "满意": "joy",
    "兴奋": "excitement", "激动": "excitement", "期待": "excitement", "迫不及待": "excitement",
    "累": "tiredness", "疲惫": "tiredness", "困": "tiredness", "心累": "tiredness", "筋疲力尽": "tiredness",
    "感激": "gratitude", "感动": "gratitude", "谢天谢地": "gratitude",
    "放松": "calm", "平静": "calm", "踏实": "calm", "松了一口气": "calm",
    "惊讶": "surprise", "没想到": "surprise", "震惊": "surprise",
    "尴尬": "embarrassment", "丢人": "embarrassment", "恶心": "disgust",
    # en
    "furious": "anger", "angry": "anger", "mad at": "anger", "pissed": "anger", "livid": "anger", "outraged": "anger",
    "frustrated": "frustration", "annoyed": "frustration", "irritated": "frustration", "fed up": "frustration",
    "sick of": "frustration", "can't stand": "frustration", "driving me crazy": "frustration",
    "sad": "sadness", "upset": "sadness", "heartbroken": "sadness", "depressed": "sadness", "miserable": "sadness",
    "lonely": "sadness", "disappointed": "sadness", "down": "sadness", "gutted": "sadness", "crushed": "sadness",
    "anxious": "anxiety", "worried": "anxiety", "nervous": "anxiety", "stressed": "anxiety", "overwhelmed": "anxiety",
    "on edge": "anxiety", "panicking": "anxiety", "dreading": "anxiety",
    "scared": "fear", "afraid": "fear", "terrified": "fear", "frightened": "fear",
    "happy": "joy", "glad": "joy", "delighted": "joy", "thrilled": "excitement", "excited": "excitement",
    "can't wait": "excitement", "pumped": "excitement", "over the moon": "joy", "proud": "joy",
    "tired": "tiredness", "exhausted": "tiredness", "burned out": "tiredness", "burnt out": "tiredness",
    "drained": "tiredness", "worn out": "tiredness", "sleepy": "tiredness",
    "grateful": "gratitude", "thankful": "gratitude", "touched": "gratitude",
    "relieved": "calm", "relaxed": "calm", "calm": "calm", "at peace": "calm",
    "surprised": "surprise", "shocked": "surprise", "stunned": "surprise",
    "embarrassed": "embarrassment", "ashamed": "embarrassment", "disgusted": "disgust", "grossed out": "disgust",
    "in love": "love",
    # more everyday wording
    "心情很差": "sadness", "心情不好": "sadness", "心情差": "sadness", "心情不错": "joy", "心情很好": "joy",
    "心情好": "joy", "气疯": "anger", "气坏": "anger", "不爽": "frustration", "烦": "frustration", "闹心": "frustration",
    "意外": "surprise", "惊喜": "surprise", "没力气": "tiredness", "掏空": "tiredness", "撑不住": "tiredness",
    "松了口气": "calm", "安心": "calm", "丢脸": "embarrassment", "寂寞": "sadness", "想家": "sadness", "心疼": "sadness",
    "吃醋": "anger", "后悔": "sadness", "惭愧": "embarrassment", "欣慰": "joy", "骄傲": "joy", "得意": "joy",
    "terrible": "sadness", "awful": "sadness", "horrible": "sadness", "hurt": "sadness", "bummed": "sadness",
    "blue": "sadness", "low": "sadness", "crying": "sadness", "homesick": "sadness", "stoked": "excitement",
    "ecstatic": "joy", "great mood": "joy", "good mood": "joy", "cheerful": "joy", "elated": "joy",
    "freaking out": "anxiety", "panic": "anxiety", "tense": "anxiety", "uneasy": "anxiety", "nervous wreck": "anxiety",
    "enraged": "anger", "infuriated": "anger", "irate": "anger", "seething": "anger", "fuming": "anger",
    "drives me nuts": "frustration", "driving me nuts": "frustration", "drives me crazy": "frustration",
    "wiped out": "tiredness", "beat": "tiredness", "knackered": "tiredness", "moved": "gratitude",
    "what a surprise": "surprise", "shock": "surprise", "embarrassing": "embarrassment", "humiliated": "embarrassment",
    "regret": "sadness", "jealous": "anger", "content": "calm", "at ease": "calm",
    # idioms and indirect wording (general knowledge, zh + en): how people say a feeling without naming it
    "七上八下": "anxiety", "提心吊胆": "anxiety", "坐立不安": "anxiety", "心慌": "anxiety", "心神不宁": "anxiety",
    "忐忑不安": "anxiety", "压力山大": "anxiety", "睡不好": "anxiety", "失眠": "anxiety", "发愁": "anxiety", "愁": "anxiety",
    "揪心": "anxiety", "悬着": "anxiety", "纠结": "anxiety", "迷茫": "anxiety", "心里没底": "anxiety",
    "堵得慌": "sadness", "心里堵": "sadness", "不是滋味": "sadness", "鼻子一酸": "sadness", "眼眶一热": "sadness",
    "哭了": "sadness", "哭": "sadness", "泪": "sadness", "丧": "sadness", "emo": "sadness",
    "破防": "sadness", "寒心": "sadness", "空落落": "sadness", "闷闷不乐": "sadness", "心酸": "sadness",
    "扎心": "sadness", "唉": "sadness", "缓不过来": "sadness", "舍不得": "sadness", "谷底": "sadness",
    "没用": "sadness", "憋屈": "frustration", "窝火": "anger", "一肚子火": "anger", "火冒三丈": "anger",
    "无语了": "frustration", "头大": "frustration", "要疯了": "frustration",
    "逼疯": "frustration", "麻了": "tiredness", "心态崩": "frustration", "烦得要命": "frustration",
    "急死": "anxiety", "着急": "anxiety", "怕得要命": "fear", "后背发凉": "fear", "后怕": "fear", "毛骨悚然": "fear",
    "乐开了花": "joy", "合不拢嘴": "joy", "美滋滋": "joy", "乐坏了": "joy", "开心到飞起": "joy",
    "爽翻": "joy", "太棒了": "joy", "治愈": "calm", "舒服": "calm", "如释重负": "calm",
    "心里暖": "gratitude", "暖暖的": "gratitude", "被暖到": "gratitude", "受宠若惊": "surprise", "暖心": "gratitude",
    "浑身没劲": "tiredness", "没精神": "tiredness", "累瘫": "tiredness", "被掏空": "tiredness", "身心俱疲": "tiredness",
    "无聊": "sadness", "地缝钻进去": "embarrassment", "社死": "embarrassment",
    "butterflies": "anxiety", "on pins and needles": "anxiety", "knot in my stomach": "anxiety",
    "can't sleep": "anxiety", "losing sleep": "anxiety", "keeping me up": "anxiety",
    "heart's racing": "anxiety", "heart is racing": "anxiety", "jittery": "anxiety", "restless": "anxiety",
    "can't sit still": "anxiety", "torn": "anxiety", "at my wit's end": "frustration",
    "wit's end": "frustration", "up the wall": "frustration", "losing it": "frustration", "lost it": "anger",
    "snapped": "anger", "blew my top": "anger", "shaking with rage": "anger",
    "choked up": "sadness", "lump in my throat": "sadness", "tearing up": "sadness",
    "cried": "sadness", "cry": "sadness", "heart sank": "sadness", "stomach dropped": "fear", "in a funk": "sadness",
    "bleh": "sadness", "meh": "sadness", "let me down": "sadness", "stings": "sadness", "rock bottom": "sadness",
    "hollowed out": "tiredness", "running on empty": "tiredness", "no energy": "tiredness", "can't be bothered": "tiredness",
    "numb": "tiredness", "useless": "sadness", "miss": "sadness", "empty": "sadness", "ache": "sadness",
    "walking on air": "joy", "on top of the world": "joy", "grinning": "joy",
    "couldn't stop smiling": "joy", "made my day": "joy", "jumped for joy": "joy", "buzzing": "excitement",
    "chuffed": "joy", "woohoo": "joy", "yay": "joy", "bliss": "calm", "weight off my shoulders": "calm",
    "phew": "calm", "breathe again": "calm", "warmed my heart": "gratitude", "flattered": "gratitude",
    "chill down my spine": "fear", "scares": "fear", "shaken": "fear", "freaked out": "anxiety",
    "wanted to disappear": "embarrassment", "mortified": "embarrassment",
    "bored": "sadness", "argh": "frustration", "ugh": "frustration", "so unfair": "anger",
}
_EMOTION_PATTERN = re.compile("|".join(
    (re.escape(w) if _CJK.search(w) else r"\b" + re.escape(w) + r"\b")
    for w in sorted(EMOTION_WORDS, key=len, reverse=True)), re.I)


#: lexicon words with an everyday non-emotional sense ("I moved to Hangzhou", "the price is down", "I miss the bus"):
#: ``find_emotion`` prefers any other emotion word in the text, and an ambiguous word alone earns no classifier boost
AMBIGUOUS_EMOTION_WORDS = frozenset({
    "moved", "down", "low", "blue", "beat", "content", "miss", "empty", "torn", "ache", "touched", "hurt", "shock",
    "panic", "terrible", "awful", "horrible", "numb", "useless", "restless", "cry", "cried", "stings", "drained",
    "crushed", "sorted", "爽", "困", "慌", "吓", "唉", "哭", "泪"})


def find_emotion(text: str) -> tuple[str, str] | None:
    """(canonical emotion type, the word) of the first unambiguous emotion word in ``text``; the first ambiguous
    one (``AMBIGUOUS_EMOTION_WORDS``) only when there is no other, so "I moved to Hangzhou and I feel so lonely"
    is loneliness, not gratitude."""
    first: re.Match[str] | None = None
    for m in _EMOTION_PATTERN.finditer(text):
        if m.group(0).lower() not in AMBIGUOUS_EMOTION_WORDS:
            first = m
            break
        first = first or m
    return (EMOTION_WORDS[first.group(0).lower()], first.group(0)) if first else None


INTENSIFIERS = re.compile(r"特别|非常|超级?|太|极其|十分|真的|好|死了|透了|最|巨|贼|爆|\b(?:very|really|so|extremely|super|"
                          r"totally|absolutely|incredibly|completely|utterly|love|adore|hate|can'?t stand|the most)\b|[!！]",
                          re.I)
SOFTENERS = re.compile(r"有点|有些|稍微|一点|还行|还好|略|\b(?:a bit|a little|kind of|kinda|sort of|somewhat|slightly|"
                       r"not too|mildly|okay with)\b", re.I)


#: a few typical phrasings per emotion type: the fallback when the classifier hears an emotion but no emotion
#: word is in the lexicon (the nearest prototype by sentence vector decides the type)
EMOTION_PROTOTYPES: dict[str, tuple[str, ...]] = {
    "joy": ("我太开心了", "心情特别好", "I'm so happy", "this made my day"),
    "anger": ("我气死了", "太让人生气了", "I'm furious", "this makes me so angry"),
    "sadness": ("我好难过", "心里很失落", "I feel so sad", "I'm really down"),
    "fear": ("我好害怕", "吓死我了", "I'm scared", "that terrified me"),
    "anxiety": ("我很焦虑", "担心得睡不着", "I'm so worried", "I'm anxious about it"),
    "frustration": ("烦死了", "真让人抓狂", "I'm so frustrated", "this is driving me crazy"),
    "surprise": ("太意外了", "没想到会这样", "what a surprise", "I can't believe it"),
    "disgust": ("太恶心了", "I'm disgusted", "that's gross"),
    "gratitude": ("真的很感激", "太感谢了", "I'm so grateful", "I really appreciate it"),
    "excitement": ("好兴奋", "太期待了", "I'm so excited", "I can't wait"),
    "calm": ("我很平静", "终于放松了", "I feel calm", "I'm relieved"),
    "tiredness": ("累死了", "没力气了", "I'm exhausted", "I'm worn out"),
    "embarrassment": ("太尴尬了", "好丢人", "so embarrassing", "I felt stupid"),
    "love": ("我爱上他了", "I'm in love"),
}
