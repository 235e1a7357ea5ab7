//! The gallery's examples (`examples/README.md`) run headless here, each
//! checked against what a player of that game would see happen.

#[allow(dead_code)]
#[path = "../examples/shop.rs"]
mod shop;

#[allow(dead_code)]
#[path = "../examples/crafting.rs"]
mod crafting;

#[allow(dead_code)]
#[path = "../examples/equipment.rs"]
mod equipment;

#[allow(dead_code)]
#[path = "../examples/deck.rs"]
mod deck;

/// `lines` holds each of `want`, in this order (other lines between).
fn in_order(lines: &[String], want: &[&str]) {
    let mut at = 0;
    for w in want {
        match lines[at..].iter().position(|l| l == w) {
            Some(i) => at += i + 1,
            None => panic!("no line {w:?} (in order) in:\n{}", lines.join("\n")),
        }
    }
}

#[test]
fn the_shop_sells_all_or_nothing_and_a_refused_purchase_changes_nothing() {
    let lines = shop::run();
    in_order(
        &lines,
        &[
            "shop: potion 5, potion 5, rope 1; bag: coin 50, coin 10",
            "buy 2 potion: bought for 6 coins",
            "  shop: potion 3, potion 5, rope 1, coin 6; bag: coin 44, coin 10, potion 2",
            "buy 1 rope: bought for 10 coins",
            "  shop: potion 3, potion 5, coin 16; bag: coin 34, coin 10, potion 2, rope 1",
            "buy 8 potion: refused: the bag has no room for 8 potion",
            "  shop: potion 3, potion 5, coin 16; bag: coin 34, coin 10, potion 2, rope 1",
            "buy 3 potion: bought for 9 coins",
            "buy 1 rope: refused: the shop has 0 rope",
            "buy 20 potion: refused: it costs 60 coins and the bag has 35",
        ],
    );
}

#[test]
fn the_crafting_bench_takes_and_makes_in_one_frame() {
    let lines = crafting::run();
    in_order(
        &lines,
        &[
            "pouch: herb 10, water 2, herb 5",
            "  took 10 herb from slot 1",
            "  took 1 water from slot 2",
            "  crafted 1 potion: 1 to slot 1",
            "pouch: potion 1, water 1, herb 5",
            "craft refused: it takes 10 herb and the pouch has 5",
            "pouch: potion 1, water 1, herb 5",
        ],
    );
}

#[test]
fn the_equipment_screen_equips_swaps_and_refuses_by_slot() {
    let lines = equipment::run();
    in_order(
        &lines,
        &[
            "  worn [head: -, body: -, left hand: -, right hand: -]; bag [helmet, hood, sword, shield, armour]",
            "put the helmet on: done",
            "wear the sword on the body: refused (slot-rules)",
            "take the sword in the left hand: done",
            "take the shield in the right hand: done",
            "put the hood on over the helmet: done, the helmet came back",
            "  worn [head: hood, body: -, left hand: sword, right hand: shield]; bag [helmet, armour]",
            "swap hands: done, the shield came back",
            "  worn [head: hood, body: -, left hand: shield, right hand: sword]; bag [helmet, armour]",
            "wear the armour on the hand holding the shield: refused (occupied)",
            "wear the armour: done",
            "  worn [head: hood, body: armour, left hand: shield, right hand: sword]; bag [helmet]",
        ],
    );
}

#[test]
fn the_deck_keeps_its_point_budget_exactly() {
    let lines = deck::run();
    in_order(
        &lines,
        &[
            "add 2 fireball: 2 fireball: 2 accepted; deck [fireball 2], 8 of 20 points",
            "add 2 shield: 2 shield: 2 accepted; deck [fireball 2, shield 2], 14 of 20 points",
            "add 10 spark: 10 spark: 10 accepted; deck [fireball 2, shield 2, spark 10], 19 of 20 points",
            "add 1 dragon: 1 dragon; 1 refused (type-restriction): not allowed: the entry rules keep it out; deck [fireball 2, shield 2, spark 10], 19 of 20 points",
            "add 1 fireball: 1 fireball; 1 refused (does-not-fit): too heavy: the size budget is spent; deck [fireball 2, shield 2, spark 10], 19 of 20 points",
            "play: took 4 spark; deck [fireball 2, shield 2, spark 6], 17 of 20 points",
            "budget 10: 2 fireball dropped nearby; deck [shield 2, spark 6], 9 of 10 points",
        ],
    );
}
