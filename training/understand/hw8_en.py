"""Eighth handwritten extraction batch, English (issue 15): see ``hw8_zh.py``."""

H = "Hypothesis"
F = "Fact"
P = "Preference"
T = "Task"
U = "TaskUpdate"
E = "EmotionalState"
C = "ContextualFrame"

ROWS: list[tuple[str, list[str]]] = [
    # hedged beliefs
    ("I think maybe the landlord forgot to renew the lease", [H]), ("The leak is probably coming from the upstairs bathroom", [H]),
    ("Maybe the parcel went to my old address", [H]), ("I suspect the dishwasher filter is clogged", [H]),
    ("My guess is the bank flagged the transfer", [H]), ("She might be allergic to the new detergent", [H]),
    ("I reckon the renovation will run over by a month", [H]), ("It could be the router, the wifi keeps dropping", [H]),
    ("Perhaps my manager already heard about it", [H]), ("I'm not sure, but I think the gym closes at ten on Sundays", [H]),
    ("Looks like the bonus isn't happening this quarter", [H]), ("I bet the kids caught it at school", [H]),
    ("The car noise is most likely the brake pads", [H]), ("Maybe Dad's blood pressure is up because of the salt", [H]),
    ("Apparently the office is moving next year, but nobody's confirmed it", [H]),
    ("I think the insurance renews next month, not totally sure", [H]), ("Rent will probably go up again in spring", [H]),
    ("The dog keeps scratching, could be ear mites", [H]), ("I have a feeling the interview went okay, fingers crossed", [H]),
    ("Possibly the heater won't light because the pressure is low", [H]), ("I wonder if the contract's penalty clause is even legal", [H]),
    ("Our team might get merged with sales soon", [H]), ("He's been quiet lately, maybe things are rough at work", [H]),
    ("It's likely the flight gets cancelled with that storm coming", [H]), ("The stomach ache is probably from that seafood last week", [H]),
    ("I guess the water's off because they're fixing the pipes", [H]), ("Probably my card got skimmed at that petrol station", [H]),
    ("I'm fairly sure the pharmacy changed the brand of my pills, but I might be wrong", [H]),
    ("Maybe she said she was working late because she didn't want to come", [H]),
    ("The package is probably stuck in customs", [H]), ("I think I'm coming down with something", [H]),
    ("Might be that the school changed the pickup time", [H]), ("Odds are the plumber won't show before Friday", [H]),
    # decisions (a Fact with attribute decision)
    ("We went with the oak table in the end", [F]), ("After thinking it over, I'm going with the evening tennis class", [F]),
    ("Decided: we're spending New Year at my parents'", [F]), ("We picked the two-bed flat facing the park", [F]),
    ("I chose the cautious pension fund", [F]), ("Final answer, the wedding's in October", [F]),
    ("We settled on the nursery near my office", [F]), ("I've decided not to renew the lease", [F]),
    ("Okay, blue curtains it is, the grey felt too gloomy", [F]), ("We opted for the train instead of flying", [F]),
    ("In the end I bought the lighter laptop, not the gaming one", [F]), ("I'm staying at my job another year, decision made", [F]),
    ("We'll take the window seats", [F]), ("Made up my mind, the cat goes to the neighbours while we travel", [F]),
    ("The team decided to launch on the first of April", [F]), ("So we're doing plan B for the garden", [F]),
    ("Going with the cheaper quote from the second builder", [F]), ("We agreed the kids start swimming lessons in May", [F]),
    # corrections
    ("Sorry, the meeting is Thursday, not Wednesday", [F]), ("Wait, no, my sister lives in Leeds, not York", [F]),
    ("Correction: the rent is 1,450, not 1,540", [F]), ("Actually I'm not allergic to milk, I'm lactose intolerant", [F]),
    ("My mistake, the check-up is on the 9th", [F]), ("I mixed up the dates, the parents' evening is at three", [F]),
    ("No, it's the 22nd we get the keys, not the 20th", [F]), ("Scratch that, the flight leaves at 8 pm, not 8 am", [F]),
    ("Sorry, my wife works at the bank, not the school", [F]), ("I was wrong earlier, the lockers are by the east gate", [F]),
    ("Actually my birthday's in November, not October", [F]), ("Sorry, I meant my son is in third grade", [F]),
    ("It's room 402, not 204, I had it backwards", [F]), ("The dentist is Friday afternoon, I said Thursday by mistake", [F]),
    # finished work without "already"
    ("Finally booked the plumber for Tuesday", [U]), ("Got the passport back today", [U]), ("The car insurance is renewed", [U]),
    ("Sent the email to the landlord this morning", [U]), ("Paid off the credit card", [U]), ("Kids had their flu shots", [U]),
    ("Submitted the thesis draft last night", [U]), ("Movers are booked for Saturday morning", [U]),
    ("The visa paperwork went in yesterday", [U]), ("Sorted out the leaking tap", [U]), ("Managed to get tickets for Friday", [U]),
    ("The CV is finally done", [U]), ("My leave got approved", [U]), ("Put the bookshelf together over the weekend", [U]),
    ("The refund came through", [U]), ("Picked up Mum's birthday present", [U]), ("Renewed my driving licence", [U]),
    ("All the receipts are filed", [U]), ("Called the bank and they fixed it", [U]), ("Just finished the tax return", [U]),
    # cancelled / postponed / in progress
    ("Forget the kitchen remodel for now, we're not doing it", [U]), ("I'm not joining the gym after all", [U]),
    ("The camping trip is off, rain", [U]), ("Skipping that lecture, not going", [U]),
    ("The dentist moved to next Wednesday", [U]), ("They pushed the parents' evening to next month", [U]),
    ("Let's push the move back a week", [U]), ("The interview got rescheduled to Friday", [U]),
    ("Halfway through the tax forms", [U]), ("Still working on the slides, about ten done", [U]),
    ("The mortgage application is still being reviewed", [U]), ("Driving lessons are going okay, two more to go", [U]),
    ("The check-up got moved to next Tuesday", [U]), ("We're pushing the move to the end of the month", [U]),
    ("Signing is now Monday afternoon instead", [U]), ("Dinner with the team is postponed to Sunday", [U]),
    ("The follow-up scan was put off until the 10th", [U]), ("Handover of the flat slipped to June", [U]),
    # standing preferences
    ("From now on, put my dentist visits in the morning", [P]), ("Going forward, no meetings before ten please", [P]),
    ("Always book me an aisle seat", [P]), ("Never suggest dishes with coriander", [P]),
    ("From now on I'd rather take the train for work trips", [P]), ("Keep your replies short with me", [P]),
    ("Send me documents as PDFs from now on", [P]), ("Oat milk in my coffee, always", [P]),
    ("Don't schedule anything for me on Sundays", [P]), ("I'd rather get reminders the evening before", [P]),
    ("I think I prefer the window seat on long flights", [P]),
    # facts about other people and things
    ("My uncle is a carpenter", [F]), ("My neighbour is a dentist", [F]), ("My sister teaches at a primary school", [F]),
    ("My brother works in Shenzhen as a programmer", [F]), ("Mum is allergic to penicillin", [F]),
    ("My colleague Priya is going on maternity leave next month", [F]), ("My husband's office is downtown", [F]),
    ("Our daughter starts middle school this year", [F]), ("Dad was an engineer before he retired", [F]),
    ("My best friend lives in Glasgow", [F]), ("My flatmate is a graphic designer", [F]),
    ("Our landlord is a retired teacher", [F]), ("My grandmother turns ninety in May", [F]), ("Alex is my brother", [F]),
    ("Tom works at the hospital on night shifts", [F]), ("Our boss is flying to Berlin next week", [F]),
    ("The neighbours' dog barks all night", [F]), ("My wife doesn't eat spicy food", [F]),
    ("Ms Chen is the kids' piano teacher", [F]), ("The project goes live at the end of March", [F]),
    ("Our cat is called Biscuit", [F]), ("My cousin just passed her driving test", [F]),
    # feelings about what others did
    ("The landlord ignored me again and honestly I'm seething", [E]), ("My coworker dumped the blame on me, I feel awful", [E]),
    ("Kid had a fever all night, I'm a zombie today", [E]), ("My boss praised me in front of everyone, I'm glowing", [E]),
    ("They lost my parcel again, I can't believe this", [E]), ("The neighbours were singing at 2am, I'm losing my mind", [E]),
    ("Mum's surgery went fine, I can finally breathe", [E]), ("The dog's been gone two days and I can't focus on anything", [E]),
    # feelings said through what happened
    ("Lost my keys again and I'm just done with today", [E]), ("Scan results came back clear, such a weight off", [E]),
    ("Worked till 2am and I can barely keep my eyes open", [E]), ("My son came top of his class and I couldn't sleep for joy", [E]),
    ("Wasn't invited to my friend's wedding and it stings", [E]), ("Someone dented my car and drove off, I'm shaking", [E]),
    ("Big presentation tomorrow and my hands won't stop sweating", [E]), ("The house finally sold and I feel so much lighter", [E]),
    ("Bonus was half of last year's, pretty deflating", [E]), ("Grandma's in hospital and I can't eat or sleep", [E]),
    ("Client rejected the pitch three times, my confidence is gone", [E]), ("Made my first loaf of bread from scratch, so proud", [E]),
    ("Flight delayed six hours, I'm at the end of my rope", [E]), ("Got a postcard from an old classmate, it made me smile", [E]),
    ("The renovation noise downstairs is giving me a headache every day", [E]),
    # tasks with a past-sounding verb or a deadline
    ("Need to get the report in by Friday", [T]), ("Have to get the car inspected this week", [T]),
    ("Gotta have the water bill paid by month end", [T]), ("Get that tooth filled next week", [T]),
    ("Should drop the old clothes at the charity shop", [T]), ("Need the contract posted tomorrow morning", [T]),
    ("Must get my licence renewed before the holidays", [T]), ("Have to pick up the test results sometime", [T]),
    # confirmations and acknowledgements
    ("Yes, do that", []), ("Sure, go ahead", []), ("Sounds good, let's do it", []), ("Yep, that works", []),
    ("Okay thanks", []), ("Right, exactly", []), ("Fine by me", []), ("Please do", []),
    # tasks and feelings in other registers, for balance
    ("Remind me to get the car serviced sometime", [T]), ("Need to pay the school fees before next week", [T]),
    ("Book me a haircut for Saturday", [T]), ("Got to finish the annual review by month end", [T]),
    ("I should stop by the bank to update my phone number", [T]), ("Have to renew the parking permit this month", [T]),
    ("This move is wearing me out", [E]), ("Still no word on the interview, I'm on edge", [E]),
    ("The landlord keeps ignoring me and I'm fuming", [E]), ("Holidays at last, so happy", [E]),
    # multi-sentence turns
    ("My brother is getting married next month. I need to sort out a gift", [F, T]),
    ("The parcel's probably lost. Can you contact the courier for me?", [H, T]),
    ("We went with the weekend class. Always remind me the day before", [F, P]),
    ("Paid the service charge. The parking fee is still due though, remind me", [U, T]),
]
