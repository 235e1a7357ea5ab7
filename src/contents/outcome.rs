//! Outcomes: everything a caller needs to settle the items of one request.

use std::mem::ManuallyDrop;

use serde::{Deserialize, Serialize};

use super::{ItemType, Landing, Landings, Props};
use crate::decimal::Decimal;
use crate::props::KindLabel;
use crate::rules::{LeftoverDestination, WhenForcedOut};

/// Why a request was refused, as the contract's kebab-case words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(bevy::reflect::Reflect)]
#[non_exhaustive]
pub enum Reason {
    /// The type may not enter (`only-these` without a row).
    TypeRestriction,
    /// An unlisted type under a size budget: it has no size.
    NoSize,
    /// No slot's rule accepts the type (`by-slot`).
    SlotRules,
    /// Fill-order `not-applicable` and the type has no reserved slot.
    NoReservedSlot,
    /// All-or-nothing and not everything fits.
    DoesNotFit,
    /// Draw-order `not-applicable` and several stacks match: name a slot.
    AmbiguousDraw,
    /// A forced removal where too few items can leave.
    TooFewCanLeave,
    /// A `by-slot` container whose game supplied no slot rules.
    NoSlotRules,
    /// A `no-limit` container reached its safety ceiling of slots.
    SlotCeiling,
    /// One holding would pass `u32::MAX` items.
    AmountCeiling,
    /// A slot index past the container's slots.
    NoSuchSlot,
    /// A slot was named in a container without slots.
    Slotless,
    /// A move from an empty slot.
    EmptySlot,
    /// A move to the slot it comes from.
    SameSlot,
    /// A move of more items than the slot holds, or of none.
    NotEnough,
    /// A move that would put a stack over its limit.
    OverStackLimit,
    /// A partial move onto a stack of another type (only whole stacks swap).
    OtherType,
    /// A move onto a stack of the same type that has no room left.
    StackFull,
    /// A transfer names a type that is not the named slot's.
    WrongType,
    /// A transfer's target slot holds another type and no swap is possible.
    Occupied,
    /// A transfer names a slot of a container without slots.
    NoSlots,
    /// The container's adoption is not loaded yet.
    NotReady,
    /// A change of properties to part of a stack, and not every changed
    /// item has room as the new kind.
    NoRoom,
}

impl Reason {
    /// The reason's word (`does-not-fit`).
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::TypeRestriction => "type-restriction",
            Reason::NoSize => "no-size",
            Reason::SlotRules => "slot-rules",
            Reason::NoReservedSlot => "no-reserved-slot",
            Reason::DoesNotFit => "does-not-fit",
            Reason::AmbiguousDraw => "ambiguous-draw",
            Reason::TooFewCanLeave => "too-few-can-leave",
            Reason::NoSlotRules => "no-slot-rules",
            Reason::SlotCeiling => "slot-ceiling",
            Reason::AmountCeiling => "amount-ceiling",
            Reason::NoSuchSlot => "no-such-slot",
            Reason::Slotless => "slotless",
            Reason::EmptySlot => "empty-slot",
            Reason::SameSlot => "same-slot",
            Reason::NotEnough => "not-enough",
            Reason::OverStackLimit => "over-stack-limit",
            Reason::OtherType => "other-type",
            Reason::StackFull => "stack-full",
            Reason::WrongType => "wrong-type",
            Reason::Occupied => "occupied",
            Reason::NoSlots => "no-slots",
            Reason::NotReady => "not-ready",
            Reason::NoRoom => "no-room",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What stopped a delivery, a pick-up or a transfer short: the limit of
/// the receiving container that the items not accepted ran into. Outcomes
/// carry it as `limited_by` (`None` when everything offered was accepted),
/// and [`Contents::would_accept_why`](super::Contents::would_accept_why)
/// answers it before the items are offered, so a UI can say "too heavy"
/// while the player is still dragging.
///
/// When several limits bind, the one that stopped the items first is
/// named: a delivery planned into the free slots that also ran out of
/// budget names the slots when they held fewer items than the budget
/// allowed, and the budget otherwise.
///
/// ```
/// # use std::sync::Arc;
/// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
/// use bevy_container::contents::LimitedBy;
/// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
/// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
/// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
/// // 12 slots of 20 berries: 240 fit, the rest is left where it is
/// let d = backpack.deliver("berries", 250);
/// assert_eq!((d.accepted, d.limited_by), (240, Some(LimitedBy::Slots)));
/// assert_eq!(LimitedBy::Slots.to_string(), "no room: every slot it may use is taken");
/// assert_eq!(backpack.deliver("axe", 0).limited_by, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum LimitedBy {
    /// No free slot is left that the type may use: every slot the fill
    /// order reaches holds a stack with no room for these items (a full
    /// backpack), or the named target slot holds another item.
    Slots,
    /// The stack the items go onto is full at its type's stack limit: a
    /// named target slot's stack, or the one slot a type may use (fill
    /// order `not-applicable`).
    StackLimit,
    /// The size budget is spent: the next item is larger than the room
    /// left (too heavy).
    SizeBudget,
    /// The entry rules keep the type out: it may not enter at all (a type
    /// restriction, no size under a budget, no slot of its own), or the
    /// slots it may use are taken and the free ones refuse it (`by-slot`).
    EntryRule,
    /// A safety ceiling: a `no-limit` container's most slots, or the most
    /// items one slotless holding counts (`u32::MAX`).
    Ceiling,
}

impl LimitedBy {
    /// The limit's kebab-case word (`size-budget`).
    ///
    /// ```
    /// use bevy_container::contents::LimitedBy;
    /// assert_eq!(LimitedBy::SizeBudget.as_str(), "size-budget");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            LimitedBy::Slots => "slots",
            LimitedBy::StackLimit => "stack-limit",
            LimitedBy::SizeBudget => "size-budget",
            LimitedBy::EntryRule => "entry-rule",
            LimitedBy::Ceiling => "ceiling",
        }
    }

    /// The limit in a player's words, as its `Display` writes it (`too
    /// heavy: the size budget is spent`).
    ///
    /// ```
    /// use bevy_container::contents::LimitedBy;
    /// assert_eq!(LimitedBy::SizeBudget.words(), "too heavy: the size budget is spent");
    /// assert_eq!(LimitedBy::StackLimit.words(), "the stack is full: it is at its stack limit");
    /// ```
    pub fn words(self) -> &'static str {
        match self {
            LimitedBy::Slots => "no room: every slot it may use is taken",
            LimitedBy::StackLimit => "the stack is full: it is at its stack limit",
            LimitedBy::SizeBudget => "too heavy: the size budget is spent",
            LimitedBy::EntryRule => "not allowed: the entry rules keep it out",
            LimitedBy::Ceiling => "too many: a safety ceiling is reached",
        }
    }

    /// The limit a refusal names by itself, when its reason is one: the
    /// entry words (`type-restriction`, `no-size`, `slot-rules`,
    /// `no-reserved-slot`, `no-slot-rules`) are [`LimitedBy::EntryRule`],
    /// `occupied` is [`LimitedBy::Slots`], `stack-full` and
    /// `over-stack-limit` are [`LimitedBy::StackLimit`], the two ceilings
    /// [`LimitedBy::Ceiling`]. `does-not-fit` needs the plan to say which
    /// limit it ran into (outcomes carry it), and the words about the
    /// request itself (`empty-slot`, `no-such-slot`, `not-ready`...) name
    /// none.
    ///
    /// ```
    /// use bevy_container::contents::{LimitedBy, Reason};
    /// assert_eq!(LimitedBy::of_refusal(Reason::SlotRules), Some(LimitedBy::EntryRule));
    /// assert_eq!(LimitedBy::of_refusal(Reason::Occupied), Some(LimitedBy::Slots));
    /// assert_eq!(LimitedBy::of_refusal(Reason::EmptySlot), None);
    /// ```
    pub fn of_refusal(reason: Reason) -> Option<LimitedBy> {
        match reason {
            Reason::TypeRestriction
            | Reason::NoSize
            | Reason::SlotRules
            | Reason::NoReservedSlot
            | Reason::NoSlotRules => Some(LimitedBy::EntryRule),
            Reason::Occupied => Some(LimitedBy::Slots),
            Reason::StackFull | Reason::OverStackLimit => Some(LimitedBy::StackLimit),
            Reason::SlotCeiling | Reason::AmountCeiling => Some(LimitedBy::Ceiling),
            _ => None,
        }
    }
}

/// The limit in a player's words ([`LimitedBy::words`]).
impl std::fmt::Display for LimitedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.words())
    }
}

/// Items refused intact: they stay with whoever offered them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    /// How many.
    pub amount: u32,
    /// Why.
    pub reason: Reason,
}

/// Items that did not fit, and where the rules send them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leftover {
    /// How many.
    pub amount: u32,
    /// Where they go.
    pub to: LeftoverDestination,
}

/// The outcome of a delivery: `offered = accepted + refused + leftover`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivered {
    /// The type offered.
    pub item: ItemType,
    /// The properties of the items offered (their kind is `item` with
    /// these); a leftover or refusal is of that kind.
    #[serde(default)]
    pub props: Props,
    /// How many were offered.
    pub offered: u32,
    /// How many entered the container.
    pub accepted: u32,
    /// Where they landed, in plan order (empty when slotless).
    pub landed: Landings,
    /// Items refused intact (they stay with the sender).
    pub refused: Option<Refused>,
    /// Items that did not fit, with their destination.
    pub leftover: Option<Leftover>,
    /// What limited the delivery when not everything offered was
    /// accepted (a partial acceptance, a leftover, or a refusal that names
    /// a limit): `None` when everything was accepted, or when the refusal
    /// is about the request itself (`not-ready`).
    #[serde(default)]
    pub limited_by: Option<LimitedBy>,
}

impl Delivered {
    /// Whether items were refused or left over: what a delivery leaves to
    /// settle outside the container.
    pub(crate) fn leaves_items(&self) -> bool {
        self.refused.is_some() || self.leftover.is_some()
    }

    pub(crate) fn nothing(item: ItemType, props: Props, offered: u32) -> Delivered {
        Delivered {
            item,
            props,
            offered,
            accepted: 0,
            landed: Landings::default(),
            refused: None,
            leftover: None,
            limited_by: None,
        }
    }

    /// All `offered` items refused intact for `reason`, with the limit the
    /// reason names by itself ([`LimitedBy::of_refusal`]).
    pub(crate) fn refused(item: ItemType, props: Props, offered: u32, reason: Reason) -> Delivered {
        Delivered {
            refused: Some(Refused {
                amount: offered,
                reason,
            }),
            limited_by: LimitedBy::of_refusal(reason),
            ..Delivered::nothing(item, props, offered)
        }
    }

    /// The kind offered.
    pub fn kind(&self) -> crate::props::Kind {
        crate::props::Kind::new(self.item.clone(), self.props.clone())
    }

    /// Items that stay with the sender: refused intact, plus a leftover
    /// sent back to the sender.
    pub fn kept_by_sender(&self) -> u32 {
        let refused = self.refused.as_ref().map_or(0, |r| r.amount);
        let back = match &self.leftover {
            Some(l) if l.to == LeftoverDestination::BackToTheSender => l.amount,
            _ => 0,
        };
        refused + back
    }
}

/// The outcome of a take: `asked = taken + shortfall`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Taken {
    /// The type asked for.
    pub item: ItemType,
    /// How many were asked for.
    pub asked: u32,
    /// How many were taken (now the caller's).
    pub taken: u32,
    /// How many were missing.
    pub shortfall: u32,
    /// The slots used and how many each gave, in order (empty when slotless).
    pub from: Landings,
    /// Why nothing was taken, when the take was refused.
    pub refused: Option<Reason>,
    /// The kind asked for and each portion's properties, when the take
    /// named a kind or any portion had properties (see [`Taken::kinds`]
    /// and [`Taken::asked_kind`]): `None` for a take of plain items from
    /// slots, so plain takes carry one word more and never allocate.
    #[serde(default)]
    pub(crate) kinds: KindsTaken,
}

/// [`Taken`]'s kinds, when it has any: an `Option<Box<TakenKinds>>` whose
/// drop is a test for `None` where the outcome is dropped, and a call
/// only when there are kinds. Left to the compiler, dropping a plain
/// take called two functions (about 11 instructions of a request's 470
/// in `examples/perf`'s backpack day).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KindsTaken(ManuallyDrop<Option<Box<TakenKinds>>>);

impl Drop for KindsTaken {
    #[inline]
    fn drop(&mut self) {
        if self.0.is_some() {
            drop_kinds(std::mem::take(&mut *self.0));
        }
    }
}

/// Drops the kinds of a take that had some.
#[cold]
#[inline(never)]
fn drop_kinds(kinds: Option<Box<TakenKinds>>) {
    drop(kinds);
}

impl std::ops::Deref for KindsTaken {
    type Target = Option<Box<TakenKinds>>;

    #[inline]
    fn deref(&self) -> &Option<Box<TakenKinds>> {
        &self.0
    }
}

impl std::ops::DerefMut for KindsTaken {
    #[inline]
    fn deref_mut(&mut self) -> &mut Option<Box<TakenKinds>> {
        &mut self.0
    }
}

impl From<Option<Box<TakenKinds>>> for KindsTaken {
    fn from(kinds: Option<Box<TakenKinds>>) -> KindsTaken {
        KindsTaken(ManuallyDrop::new(kinds))
    }
}

impl KindsTaken {
    /// The kinds of a take whose one portion, `amount` items from a slot,
    /// carries `props` (not empty): what [`Taken::note_kind`] notes for it.
    #[cold]
    pub(crate) fn portion(props: Props, amount: u32) -> KindsTaken {
        Some(Box::new(TakenKinds {
            asked: None,
            portions: vec![(props, amount)],
        }))
        .into()
    }
}

impl Serialize for KindsTaken {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for KindsTaken {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<KindsTaken, D::Error> {
        Option::<Box<TakenKinds>>::deserialize(d).map(KindsTaken::from)
    }
}

/// What a take of kinds adds to its outcome.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TakenKinds {
    /// The kind asked for (`None`: any kind of the type).
    pub(crate) asked: Option<Props>,
    /// Each portion's properties and amount, when any had properties or
    /// the container is slotless (else the portions are `from`'s, plain).
    pub(crate) portions: Vec<(Props, u32)>,
}

impl Taken {
    /// Nothing taken yet of `asked` items of `item`: all of them short.
    pub(crate) fn nothing(item: ItemType, props: Option<Props>, asked: u32) -> Taken {
        Taken {
            item,
            asked,
            taken: 0,
            shortfall: asked,
            from: Landings::default(),
            refused: None,
            kinds: props
                .map(|p| {
                    Box::new(TakenKinds {
                        asked: Some(p),
                        portions: Vec::new(),
                    })
                })
                .into(),
        }
    }

    /// The kind the take asked for: `None` for any kind of the type.
    pub fn asked_kind(&self) -> Option<&Props> {
        self.kinds.as_ref().and_then(|k| k.asked.as_ref())
    }

    /// Sets the kind asked for.
    pub(crate) fn set_asked(&mut self, props: Option<&Props>) {
        match (props, &mut *self.kinds) {
            (None, None) => {}
            (p, Some(k)) => k.asked = p.cloned(),
            (Some(p), kinds) => {
                *kinds = Some(Box::new(TakenKinds {
                    asked: Some(p.clone()),
                    portions: Vec::new(),
                }))
            }
        }
    }

    /// Notes a portion of `amount` items with `props` that left: after its
    /// slot was pushed onto `from` (`slotless`: no slot, every portion is
    /// listed).
    #[inline]
    pub(crate) fn note_kind(&mut self, props: &Props, amount: u32, slotless: bool) {
        let listed = self.kinds.as_ref().is_some_and(|k| !k.portions.is_empty());
        if !slotless && !listed && props.is_empty() {
            return;
        }
        self.note_listed(props, amount, slotless, listed);
    }

    #[cold]
    fn note_listed(&mut self, props: &Props, amount: u32, slotless: bool, listed: bool) {
        let kinds = self.kinds.get_or_insert_with(Default::default);
        if !slotless && !listed {
            // the plain portions before this one
            let before = self.from.len().saturating_sub(1);
            for l in &self.from.as_slice()[..before] {
                kinds.portions.push((Props::EMPTY, l.amount));
            }
        }
        kinds.portions.push((props.clone(), amount));
    }

    /// What left, portion by portion in the order taken (a slot at a time;
    /// slotless, a kind at a time): each portion's properties and amount.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// use bevy_container::props::Props;
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
    /// let ripe = Props::new([("ripe", true)]).unwrap();
    /// backpack.deliver("berries", 2);
    /// backpack.deliver_kind("berries", &ripe, 3); // a stack of its own
    /// let t = backpack.take_from("berries", 2, 1); // the player's click
    /// assert_eq!(t.kinds(), vec![(ripe, 2)]);
    /// let t = backpack.take_from("berries", 1, 0);
    /// assert_eq!(t.kinds(), vec![(Props::EMPTY, 1)]);
    /// ```
    pub fn kinds(&self) -> Vec<(Props, u32)> {
        if let Some(k) = self.kinds.as_ref().filter(|k| !k.portions.is_empty()) {
            return k.portions.clone();
        }
        if self.from.is_empty() {
            return if self.taken > 0 {
                vec![(Props::EMPTY, self.taken)]
            } else {
                Vec::new()
            };
        }
        self.from.iter().map(|l| (Props::EMPTY, l.amount)).collect()
    }
}

/// What a forced removal is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// The container shrank (slot count or budget lowered).
    Shrink,
    /// Its rules changed (a reload, the tuning, or another adoption).
    RulesChanged,
    /// Its owner is gone: everything must leave.
    OwnerGone,
    /// A save was loaded under an adoption that changed since.
    Loaded,
}

/// Items that left in a forced removal, from one slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Portion {
    /// The type.
    pub item: ItemType,
    /// The properties its items carry (one kind per portion).
    #[serde(default)]
    pub props: Props,
    /// How many.
    pub amount: u32,
    /// The slot it left from (`None` when slotless).
    pub slot: Option<u32>,
    /// Where its row sends it.
    pub to: WhenForcedOut,
}

/// Why a forced removal was refused: how much could not leave, and which
/// types held it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shortfall {
    /// Stacks that would still need a slot.
    pub slots: u64,
    /// Size that would still be over budget.
    pub size: Decimal,
    /// Types whose rules keep them in (`never` or unlisted), sorted; for a
    /// change that would split stacks into more pieces than any container
    /// has slots, the types over their stack limit.
    pub held_by: Vec<ItemType>,
}

impl std::fmt::Display for Shortfall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if self.slots > 0 {
            parts.push(format!(
                "{} slot{}",
                self.slots,
                if self.slots == 1 { "" } else { "s" }
            ));
        }
        if !self.size.is_zero() {
            parts.push(format!("{} size", self.size));
        }
        if parts.is_empty() {
            parts.push("items".into());
        }
        write!(f, "{}", parts.join(" and "))?;
        if !self.held_by.is_empty() {
            let names: Vec<&str> = self.held_by.iter().map(ItemType::as_str).collect();
            write!(f, " held by {}", names.join(", "))?;
        }
        Ok(())
    }
}

/// The outcome of a forced removal: the portions that left in order, or a
/// refusal that changed nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForcedOut {
    /// Why items had to leave.
    pub cause: Cause,
    /// What left, in the order it left (empty when refused).
    pub portions: Vec<Portion>,
    /// Set when too few items could leave: nothing left and the container
    /// kept its previous capacity and rules.
    pub refused: Option<Shortfall>,
}

/// The outcome of a sort or a move: refused with a reason, or done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rearranged {
    /// Why nothing changed, when refused.
    pub refused: Option<Reason>,
}

fn slot_list(landed: &[Landing]) -> String {
    landed
        .iter()
        .map(|l| format!("{} to slot {}", l.amount, l.slot + 1))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads like a log line: `25 berries: 20 to slot 1, 5 to slot 2`. When
/// not everything entered, what was refused or left over follows, then
/// what limited the delivery ([`LimitedBy`], in a player's words): `35
/// left where it is: no room: every slot it may use is taken`.
///
/// ```
/// # use std::sync::Arc;
/// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
/// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
/// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
/// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
/// assert_eq!(backpack.deliver("berries", 25).to_string(), "25 berries: 20 to slot 1, 5 to slot 2");
/// // 12 slots of 20: 215 more fit, the rest stops short, and the text says why
/// let full = backpack.deliver("berries", 250).to_string();
/// assert!(full.ends_with("; 35 left where it is: no room: every slot it may use is taken"), "{full}");
/// ```
impl std::fmt::Display for Delivered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}",
            self.offered,
            KindLabel(self.item.as_str(), &self.props)
        )?;
        if self.landed.is_empty() {
            if self.accepted > 0 {
                write!(f, ": {} accepted", self.accepted)?;
            }
        } else {
            write!(f, ": {}", slot_list(&self.landed))?;
        }
        if let Some(r) = &self.refused {
            write!(f, "; {} refused ({})", r.amount, r.reason)?;
        }
        if let Some(l) = &self.leftover {
            write!(f, "; {} {}", l.amount, l.to.as_str().replace('-', " "))?;
        }
        // why the rest did not enter (set only when something did not)
        if let Some(why) = self.limited_by {
            write!(f, ": {why}")?;
        }
        Ok(())
    }
}

/// Reads like a log line: `took 4 berries from slot 2`.
impl std::fmt::Display for Taken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let empty = Props::EMPTY;
        let item = KindLabel(self.item.as_str(), self.asked_kind().unwrap_or(&empty));
        if let Some(r) = self.refused {
            return write!(f, "take of {} {item} refused ({r})", self.asked);
        }
        if self.taken == self.asked {
            write!(f, "took {} {item}", self.taken)?;
        } else {
            write!(
                f,
                "took {} of {} {item} ({} short)",
                self.taken, self.asked, self.shortfall
            )?;
        }
        match self.from.as_slice() {
            [] => {}
            [one] => write!(f, " from slot {}", one.slot + 1)?,
            many => {
                let parts: Vec<String> = many
                    .iter()
                    .map(|l| format!("{} from slot {}", l.amount, l.slot + 1))
                    .collect();
                write!(f, ": {}", parts.join(", "))?;
            }
        }
        Ok(())
    }
}

/// Reads like a log line: `rearranged`, or the refusal with the limit
/// its reason names, if any ([`LimitedBy::of_refusal`]): `refused
/// (stack-full): the stack is full: it is at its stack limit`.
///
/// ```
/// # use std::sync::Arc;
/// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
/// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
/// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
/// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
/// backpack.deliver("berries", 25); // 20 in slot 0, 5 in slot 1
/// assert_eq!(
///     backpack.move_items(1, 0, None).to_string(),
///     "refused (stack-full): the stack is full: it is at its stack limit"
/// );
/// assert_eq!(backpack.sort(&[]).to_string(), "rearranged");
/// ```
impl std::fmt::Display for Rearranged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(reason) = self.refused else {
            return f.write_str("rearranged");
        };
        write!(f, "refused ({reason})")?;
        match LimitedBy::of_refusal(reason) {
            Some(why) => write!(f, ": {why}"),
            None => Ok(()),
        }
    }
}

/// Reads like a log line: `axe from slot 7 dropped nearby, axe from slot 3
/// dropped nearby`, or `refused: 4 slots held by berries, letter`.
impl std::fmt::Display for ForcedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(short) = &self.refused {
            return write!(f, "refused: {short} never leave");
        }
        if self.portions.is_empty() {
            return write!(f, "nothing had to leave");
        }
        let parts: Vec<String> = self
            .portions
            .iter()
            .map(|p| {
                let from = p
                    .slot
                    .map(|s| format!(" from slot {}", s + 1))
                    .unwrap_or_default();
                format!(
                    "{} {}{from} {}",
                    p.amount,
                    KindLabel(p.item.as_str(), &p.props),
                    p.to.as_str().replace('-', " ")
                )
            })
            .collect();
        write!(f, "{}", parts.join(", "))
    }
}
