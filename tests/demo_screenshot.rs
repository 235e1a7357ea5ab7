//! The windowed demo runs its scripted day under Xvfb, hovers the
//! backpack's first slot and saves a screenshot; the PNG has the window's
//! size, is not blank, shows the backpack grid where it is drawn (its
//! berries cell in the catalog's berries colour) and the tooltip of the
//! hovered slot next to it (the tooltip's background colour).
//!
//! Needs `xvfb-run` and a Vulkan driver (Debian: `xvfb`,
//! `mesa-vulkan-drivers`); `.ci/run` installs them and sets
//! `CONTAINER_REQUIRE_SCREENSHOT=1` so a missing one fails instead of
//! skipping.
#![cfg(feature = "ui")]

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;

use bevy::prelude::*;
use bevy_container::adoption::Format;
use bevy_container::ui::{GridStyle, ItemCatalog};

/// Where the demo draws the backpack grid, in pixels of the 1280x720
/// window (examples/demo/view.rs: a panel 16 px from the right and 12 px
/// from the top, 10 px padding, two sections of 4 columns of 52 px cells
/// 4 px apart and 12 px between them: the backpack's cells at about
/// x 802..1022, y 65..229, the chest's from x 1034). Generous around the
/// backpack's cells, short of the chest's.
const BACKPACK: (Range<u32>, Range<u32>) = (795..1028, 30..290);

/// Where the tooltip of the backpack's first cell is drawn: 16 px right of
/// and below the cell's centre (about 828, 91), up to 260 px wide and a
/// few lines high (about x 844..1104, y 107..215). Generous, and it
/// covers no other surface drawn in that colour.
const TOOLTIP: (Range<u32>, Range<u32>) = (830..1280, 80..420);

/// Fewest pixels of the berries colour in [`BACKPACK`]: a 52 px cell is
/// about 2,000 inside its border, less its text.
const BERRY_PIXELS: usize = 800;

/// Fewest pixels of the tooltip's background in [`TOOLTIP`]: the tooltip
/// is about 260 by 100 pixels, less its text.
const TOOLTIP_PIXELS: usize = 5000;

/// Whether `xvfb-run` is installed.
fn have_xvfb() -> bool {
    Command::new("sh")
        .args(["-c", "command -v xvfb-run"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A decoded screenshot: RGB rows.
struct Picture {
    width: u32,
    height: u32,
    channels: usize,
    line: usize,
    bytes: Vec<u8>,
}

impl Picture {
    /// Reads a PNG.
    fn read(path: &Path) -> Picture {
        let file = std::fs::File::open(path).expect("the screenshot exists");
        let decoder = png::Decoder::new(std::io::BufReader::new(file));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut bytes = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut bytes).expect("a frame");
        Picture {
            width: info.width,
            height: info.height,
            channels: info.line_size / info.width as usize,
            line: info.line_size,
            bytes,
        }
    }

    /// The red, green and blue of a pixel.
    fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let i = y as usize * self.line + x as usize * self.channels;
        [self.bytes[i], self.bytes[i + 1], self.bytes[i + 2]]
    }

    /// How many pixels of `area` are `like`.
    fn count(&self, area: &(Range<u32>, Range<u32>), like: impl Fn([u8; 3]) -> bool) -> usize {
        let (xs, ys) = area;
        let ys = ys.start..ys.end.min(self.height);
        let xs = xs.start..xs.end.min(self.width);
        ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| like(self.pixel(x, y)))
            .count()
    }
}

/// A colour's sRGB channels, 0 to 255 (alpha dropped).
fn rgb8(colour: Color) -> [u8; 3] {
    let s = colour.to_srgba();
    [s.red, s.green, s.blue].map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// Whether each channel of `pixel` is within `by` of `colour`'s.
fn near(pixel: [u8; 3], colour: [u8; 3], by: u8) -> bool {
    pixel.iter().zip(colour).all(|(p, c)| p.abs_diff(c) <= by)
}

/// The berries colour, read from `assets/demo.items.ron` the way the
/// catalog loader reads it.
fn berries_colour() -> [u8; 3] {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.items.ron");
    let bytes = std::fs::read(&path).expect("assets/demo.items.ron");
    let catalog = ItemCatalog::read(&bytes, Format::Ron).expect("the demo's catalog reads");
    let berries = catalog.get("berries").expect("the catalog lists berries");
    rgb8(berries.colour)
}

/// Whether a pixel is the tooltip's background: near its colour (it is
/// 92% opaque, over the dark panel and cells) and bluer than red, which
/// sets it apart from the torn cells' dark red.
fn tooltip_like(tooltip: [u8; 3]) -> impl Fn([u8; 3]) -> bool {
    move |pixel: [u8; 3]| {
        let [red, _, blue] = pixel;
        near(pixel, tooltip, 10) && blue >= red.saturating_add(3)
    }
}

/// Runs the demo under Xvfb: scripted, then the screenshot to `out`.
fn run_demo(out: &Path) {
    let status = Command::new("xvfb-run")
        .args([
            "-a",
            "-s",
            "-screen 0 1280x720x24",
            env!("CARGO"),
            "run",
            "-q",
            "--example",
            "demo",
            // the features the tests are built with: nothing to rebuild
            "--all-features",
            "--",
            "--script",
            "--screenshot",
        ])
        .arg(out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("xvfb-run runs");
    assert!(status.success(), "the demo exited with {status}");
}

#[test]
fn the_windowed_demo_renders_the_backpack_and_a_tooltip() {
    if !have_xvfb() {
        assert!(
            std::env::var("CONTAINER_REQUIRE_SCREENSHOT").is_err(),
            "xvfb-run is missing: apt-get install xvfb mesa-vulkan-drivers"
        );
        eprintln!("skipped: xvfb-run is not installed");
        return;
    }
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("demo-screenshot.png");
    let _ = std::fs::remove_file(&out);
    run_demo(&out);
    let picture = Picture::read(&out);
    assert_eq!((picture.width, picture.height), (1280, 720));

    // not blank: many colours over the whole picture
    let mut colours = std::collections::BTreeSet::new();
    for y in (0..picture.height).step_by(7) {
        for x in (0..picture.width).step_by(7) {
            colours.insert(picture.pixel(x, y));
        }
    }
    assert!(colours.len() > 50, "only {} colours: blank?", colours.len());

    // the backpack grid: at dusk its first slot holds 20 berries, drawn in
    // the catalog's berries colour
    let berries = berries_colour();
    let berry_pixels = picture.count(&BACKPACK, |p| near(p, berries, 8));
    assert!(
        berry_pixels >= BERRY_PIXELS,
        "no berries cell ({berries:?}) where the backpack grid is drawn: {berry_pixels} pixels"
    );

    // the tooltip of the hovered first slot, in GridStyle's tooltip colour
    let tooltip = rgb8(GridStyle::default().tooltip_back);
    let tooltip_pixels = picture.count(&TOOLTIP, tooltip_like(tooltip));
    assert!(
        tooltip_pixels >= TOOLTIP_PIXELS,
        "no tooltip ({tooltip:?}) next to the backpack's first slot: {tooltip_pixels} pixels"
    );
}
