use super::*;
use std::os::unix::fs::PermissionsExt;

fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        FileType::Fifo,
        Mode::RUSR | Mode::WUSR,
        0,
    )
    .unwrap();
}

#[test]
fn a_regular_file_is_read_and_a_symlink_to_one_is_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("t.yaml");
    std::fs::write(&file, "name: x\n").unwrap();
    let link = tmp.path().join("link.yaml");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    assert_eq!(read_text(&link, InputKind::TypeFile).unwrap(), "name: x\n");
}

#[test]
fn a_fifo_and_a_device_are_refused_without_blocking_or_reading() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("pipe");
    mkfifo(&fifo);
    let err = read(&fifo, InputKind::TypeFile).unwrap_err().to_string();
    assert!(
        err.contains("it is a named pipe, not a regular file"),
        "{err}"
    );
    let err = read(Path::new("/dev/zero"), InputKind::PluginComponent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("a character device"), "{err}");
    let err = read(tmp.path(), InputKind::TypeFile)
        .unwrap_err()
        .to_string();
    assert!(err.contains("a directory"), "{err}");
}

#[test]
fn a_file_past_its_kinds_bound_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("big.yaml");
    let f = std::fs::File::create(&file).unwrap();
    f.set_len(InputKind::TypeFile.limit() + 1).unwrap();
    let err = read(&file, InputKind::TypeFile).unwrap_err().to_string();
    assert!(
        err.contains("more than 1048576 bytes, the most a type file may hold"),
        "{err}"
    );
    f.set_len(InputKind::TypeFile.limit()).unwrap();
    assert_eq!(read(&file, InputKind::TypeFile).unwrap().len(), 1 << 20);
}

#[test]
fn an_output_replaces_a_regular_file_or_makes_a_new_one_privately() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("backup.json");
    write_replacing(&out, b"one").unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"one");
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o644)).unwrap();
    write_replacing(&out, b"two").unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"two");
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file is left");
}

#[test]
fn an_output_that_is_a_symlink_a_fifo_or_a_directory_is_refused_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("secret");
    std::fs::write(&target, "keep").unwrap();
    let link = tmp.path().join("out.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let err = write_replacing(&link, b"doc").unwrap_err().to_string();
    assert!(err.contains("it is a symlink"), "{err}");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).unwrap(), b"keep");
    let fifo = tmp.path().join("pipe.json");
    mkfifo(&fifo);
    let err = write_replacing(&fifo, b"doc").unwrap_err().to_string();
    assert!(err.contains("it is a named pipe"), "{err}");
    let err = write_replacing(tmp.path(), b"doc").unwrap_err().to_string();
    assert!(err.contains("cannot write"), "{err}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 3);
}
