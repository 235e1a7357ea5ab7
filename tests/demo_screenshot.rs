//! The windowed demo runs its scripted day under Xvfb and saves a
//! screenshot; the PNG has the window's size, is not blank, and shows the
//! backpack grid where it is drawn.
//!
//! Needs `xvfb-run` and a Vulkan driver (Debian: `xvfb`,
//! `mesa-vulkan-drivers`); `.ci/run` installs them and sets
//! `CONTAINER_REQUIRE_SCREENSHOT=1` so a missing one fails instead of
//! skipping.

use std::path::PathBuf;
use std::process::Command;

fn have_xvfb() -> bool {
    Command::new("sh")
        .args(["-c", "command -v xvfb-run"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_windowed_demo_renders_the_backpack() {
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
            "--",
            "--script",
            "--screenshot",
        ])
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("xvfb-run runs");
    assert!(status.success(), "the demo exited with {status}");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&out).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1280, 720));
    let channels = info.line_size / info.width as usize;
    let pixel = |x: u32, y: u32| {
        let i = y as usize * info.line_size + x as usize * channels;
        [buf[i], buf[i + 1], buf[i + 2]]
    };
    // not blank: many colours over the whole picture
    let mut colours = std::collections::BTreeSet::new();
    for y in (0..info.height).step_by(7) {
        for x in (0..info.width).step_by(7) {
            colours.insert(pixel(x, y));
        }
    }
    assert!(colours.len() > 50, "only {} colours: blank?", colours.len());
    // the backpack grid sits at the top right: its first cell holds berries,
    // drawn in the berries colour (a purple-red: red and blue above green)
    let mut berry_pixels = 0;
    for y in 40..200 {
        for x in 820..1270 {
            let [r, g, b] = pixel(x, y).map(u16::from);
            if r > g + 20 && b > g + 10 {
                berry_pixels += 1;
            }
        }
    }
    assert!(
        berry_pixels > 500,
        "no berries cell where the grid is drawn ({berry_pixels} pixels)"
    );
}
