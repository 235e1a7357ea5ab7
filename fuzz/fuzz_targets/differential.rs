//! The paths against each other: a sequence of requests (every kind,
//! several containers under the conformance cases' adoptions, stores,
//! senders, same-frame groups) built from the input and answered through
//! the engine alone (one container), through the plugin, and through the
//! plugin with the whole world written to scene text and read back before
//! every frame. What must hold: every path answers (one outcome a
//! request), and all of them print the same lines: the same outcomes and
//! the same contents after every frame.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use bevy_container::contents::{PropsAt, TransferRequest};
use bevy_container::decimal::Decimal;
use bevy_container::props::{Kind, Props};
use bevy_container::scenario::{Action, ContainerSpec, Request, Scenario, Step};
use libfuzzer_sys::fuzz_target;

mod common;
use common::Input;

struct Pool {
    containers: Vec<ContainerSpec>,
    items: Vec<String>,
    props: Vec<Props>,
}

/// Every container of the conformance cases (sorted by file, so a crash
/// reproduces), and every item type their adoptions list.
fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/conformance"));
        let mut files = Vec::new();
        for dir in ["", "frames", "moves", "props", "world"] {
            for entry in std::fs::read_dir(root.join(dir)).expect("the cases are there") {
                let path = entry.expect("a case").path();
                let name = path.to_string_lossy();
                if name.ends_with(".json") && !name.ends_with(".adoption.json") {
                    files.push(path);
                }
            }
        }
        files.sort();
        let mut containers = Vec::new();
        let mut items = vec!["unlisted-rock".to_string()];
        for f in files {
            let Ok(s) = Scenario::read(&f) else { continue };
            for c in s.containers {
                for rows in c.adoption.rows.values() {
                    items.extend(rows.iter().map(|r| r.id.clone()));
                }
                containers.push(ContainerSpec { store: None, ..c });
            }
        }
        items.sort();
        items.dedup();
        let props = [
            "{}",
            r#"{"q":1}"#,
            r#"{"durability":3}"#,
            r#"{"durability":2,"q":1}"#,
        ]
        .iter()
        .map(|t| Props::parse(t).expect("valid"))
        .collect();
        Pool {
            containers,
            items,
            props,
        }
    })
}

/// The steps this target builds from its input.
trait Steps {
    fn amount(&mut self) -> u32;
    fn slot(&mut self) -> u32;
    fn item(&mut self) -> String;
    fn props(&mut self) -> Props;
}

impl Steps for Input<'_> {
    fn amount(&mut self) -> u32 {
        u32::from(self.byte() % 48)
    }
    fn slot(&mut self) -> u32 {
        u32::from(self.byte() % 16)
    }
    fn item(&mut self) -> String {
        let p = pool();
        p.items[self.below(p.items.len())].clone()
    }
    fn props(&mut self) -> Props {
        let p = pool();
        p.props[self.below(p.props.len())].clone()
    }
}

fn scenario(input: &mut Input) -> Scenario {
    let p = pool();
    let head = input.byte();
    let n = 1 + usize::from(head % 3);
    let world = n > 1 || head & 0x10 != 0;
    let mut containers: Vec<ContainerSpec> = (0..n)
        .enumerate()
        .map(|(i, _)| ContainerSpec {
            name: format!("c{i}"),
            ..p.containers[input.below(p.containers.len())].clone()
        })
        .collect();
    if world {
        for c in &mut containers {
            c.store = input.option(|i| i.below(n));
        }
    }
    let mut steps = Vec::new();
    while !input.0.is_empty() && steps.len() < 24 {
        let container = input.below(n);
        let same_frame = !steps.is_empty() && input.byte() & 1 == 1;
        let op = input.byte() % if world { 8 } else { 7 };
        let mut sender = None;
        let action = match op {
            0 => {
                if world {
                    sender = input.option(|i| i.below(n));
                }
                Action::Step(Step::Deliver {
                    item: input.item(),
                    amount: input.amount(),
                    props: input.props(),
                })
            }
            1 => Action::Step(Step::Take {
                item: input.item(),
                amount: input.amount(),
                slot: input.option(|i| i.slot()),
                props: input.option(|i| i.props()),
            }),
            2 => Action::Step(Step::SetProps {
                at: match input.byte() & 1 {
                    0 => PropsAt::Slot(input.slot()),
                    _ => PropsAt::Held(Kind::new(input.item().as_str(), input.props())),
                },
                amount: input.option(|i| i.amount()),
                to: input.props(),
            }),
            3 => Action::Step(Step::Resize {
                slot_count: input.option(|i| i.slot()),
                size_budget: input.option(|i| Decimal::from_micros(u128::from(i.byte()) * 250_000)),
            }),
            4 => Action::Step(Step::OwnerGone),
            5 => Action::Step(Step::Sort {
                order: (0..input.byte() % 4).map(|_| input.item()).collect(),
            }),
            6 => Action::Step(Step::Move {
                from: input.slot(),
                to: input.slot(),
                amount: input.option(|i| i.amount()),
            }),
            _ => {
                let to = input.below(n);
                let mut request = match input.byte() & 1 {
                    0 => TransferRequest::item(input.item(), input.amount()),
                    _ => TransferRequest::from_slot(input.slot(), input.amount()),
                };
                if let Some(slot) = input.option(|i| i.slot()) {
                    request = request.to_slot(slot);
                }
                if let Some(props) = input.option(|i| i.props()) {
                    request = request.with_props(props);
                }
                Action::Transfer { to, request }
            }
        };
        steps.push(Request {
            container,
            action,
            sender,
            same_frame,
        });
    }
    Scenario {
        containers,
        world,
        tuning: Default::default(),
        steps,
    }
}

fuzz_target!(|data: &[u8]| {
    if pool().containers.is_empty() {
        return;
    }
    let s = scenario(&mut Input(data));
    if s.steps.is_empty() || s.rules().is_err() {
        return;
    }
    let ecs = s.run_ecs().expect("the plugin answers every request");
    let scene = s
        .run_through_scene()
        .expect("the plugin answers every request through a scene");
    assert_eq!(
        ecs, scene,
        "the plugin and the plugin through a scene agree"
    );
    if !s.world {
        let engine = s.run().expect("the engine answers every request");
        assert_eq!(engine, ecs, "the engine and the plugin agree");
    }
});
