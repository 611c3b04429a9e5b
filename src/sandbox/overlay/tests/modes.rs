//! Which mode an overlay sandbox gets (`AGENTS_OVERLAY`, the fallback
//! and its warning) and what `create` refuses before writing anything.

use super::*;

#[test]
fn without_the_kernel_overlay_auto_falls_back_to_user_space_and_kernel_is_refused() {
    // overlayfs mount options cannot carry a `,` in a path.
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("original,with a comma");
    write(&original, "a.txt", b"a");
    let area = tmp.path().join("area");
    fs::create_dir(&area).unwrap();
    let err = Overlay::kernel().create(&original, &area).unwrap_err();
    assert!(
        err.to_string()
            .contains("the kernel overlay is unavailable"),
        "{err}"
    );
    assert!(
        err.to_string().contains("AGENTS_OVERLAY=userspace"),
        "{err}"
    );
    for dir in ["upper", "ovl-work", "merged", "mode"] {
        assert!(!area.join(dir).exists(), "{dir} is left behind");
    }
    let place = Overlay::new().create(&original, &area).unwrap();
    assert_eq!(Overlay::mode_of(&place).unwrap(), OverlayMode::UserSpace);
    assert_eq!(state(&place.workdir), state(&original));
}

#[test]
fn a_mode_is_picked_by_name_and_a_refusing_overlay_is_refused_at_create() {
    assert_eq!(Overlay::named(""), Some(Overlay::new()));
    assert_eq!(Overlay::named("auto"), Some(Overlay::new()));
    assert_eq!(Overlay::named("kernel"), Some(Overlay::kernel()));
    assert_eq!(Overlay::named("userspace"), Some(Overlay::user_space()));
    assert_eq!(Overlay::named("fast"), None);
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("original");
    write(&original, "a.txt", b"a");
    let area = tmp.path().join("area");
    fs::create_dir(&area).unwrap();
    let err = Overlay::refusing("no mode for you")
        .create(&original, &area)
        .unwrap_err();
    assert_eq!(err.to_string(), "no mode for you");
    assert!(!area.join("mode").exists());
}

#[test]
fn a_fifo_in_the_original_is_refused_at_create_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("original");
    write(&original, "a.txt", b"a");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        original.join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let area = tmp.path().join("area");
    fs::create_dir(&area).unwrap();
    let err = Overlay::new().create(&original, &area).unwrap_err();
    assert!(matches!(err, SandboxError::Unsuitable(_)), "{err}");
    assert!(err.to_string().contains("pipe"), "{err}");
    assert_eq!(
        fs::read_dir(&area).unwrap().count(),
        0,
        "nothing written in the area"
    );
}

/// Keeps every `sandbox` warning this test binary logs.
struct Warnings(std::sync::Mutex<Vec<String>>);

impl log::Log for Warnings {
    fn enabled(&self, meta: &log::Metadata<'_>) -> bool {
        meta.target() == "sandbox" && meta.level() <= log::Level::Warn
    }
    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            self.0.lock().unwrap().push(record.args().to_string());
        }
    }
    fn flush(&self) {}
}

static WARNINGS: Warnings = Warnings(std::sync::Mutex::new(Vec::new()));

#[test]
fn the_user_space_overlay_warns_once_at_create_what_it_costs() {
    if log::set_logger(&WARNINGS).is_ok() {
        log::set_max_level(log::LevelFilter::Warn);
    }
    let f = fixture(OverlayMode::UserSpace).unwrap();
    f.strategy.checkpoint(&f.place, "one").unwrap();
    f.strategy.diff(&f.place).unwrap();
    let about_this: Vec<String> = WARNINGS
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|w| w.contains(&f.original.display().to_string()))
        .cloned()
        .collect();
    assert_eq!(about_this.len(), 1, "{about_this:?}");
    assert!(
        about_this[0].contains("copies the whole original"),
        "{about_this:?}"
    );
    assert!(
        about_this[0].contains("does not see changes made to the original"),
        "{about_this:?}"
    );
}
