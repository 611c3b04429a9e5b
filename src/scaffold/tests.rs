use super::*;

fn spec(lang: Lang, classes: &[&str], dir: &Path) -> NewPlugin {
    NewPlugin {
        module: ModuleName::parse("myteam.node").unwrap(),
        lang,
        classes: classes
            .iter()
            .map(|c| ClassName::parse(c).unwrap())
            .collect(),
        dir: Some(dir.to_owned()),
    }
}

#[test]
fn every_type_file_of_a_scaffold_parses_and_names_its_class() {
    for lang in [Lang::Rust, Lang::Python] {
        let plan = plan(&spec(lang, &["NodeHandler", "LockFile"], Path::new("x"))).unwrap();
        let names: Vec<&str> = plan.types.iter().map(TypeName::as_str).collect();
        assert_eq!(names, ["myteam/node", "myteam/lock-file"]);
        for (file, class) in [("node.yaml", "NodeHandler"), ("lock-file.yaml", "LockFile")] {
            let (_, text) = plan
                .files
                .iter()
                .find(|(p, _)| p == Path::new(file))
                .unwrap();
            let ty = crate::typespec::parse_type_file(text, file).unwrap();
            let handler = ty.handler.unwrap();
            assert_eq!(handler.module.as_str(), "myteam.node");
            assert_eq!(handler.class.as_str(), class);
        }
    }
}

#[test]
fn every_placeholder_of_every_template_is_filled() {
    for lang in [Lang::Rust, Lang::Python] {
        let plan = plan(&spec(lang, &[], Path::new("x"))).unwrap();
        for (path, text) in &plan.files {
            assert!(!text.contains("@@"), "{}: {text}", path.display());
        }
        let (_, wit) = &plan.files[0];
        assert_eq!(wit, ContractVersion::CURRENT.wit_files()[0].1);
    }
}

#[test]
fn a_class_given_twice_or_two_classes_of_one_type_are_refused() {
    let err = plan(&spec(Lang::Rust, &["A", "A"], Path::new("x")))
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "class A is given twice; each --class names one class"
    );
    let err = plan(&spec(Lang::Rust, &["Node", "NodeHandler"], Path::new("x")))
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("would both handle type myteam/node"),
        "{err}"
    );
}

#[test]
fn a_scaffold_goes_only_into_a_new_or_empty_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    let made = new_plugin(&spec(Lang::Python, &[], &dir)).unwrap();
    assert!(dir.join("app.py").is_file() && dir.join("wit/resource.wit").is_file());
    assert_eq!(made.files.len(), 5, "{:?}", made.files);
    let err = new_plugin(&spec(Lang::Rust, &[], &dir)).unwrap_err();
    assert!(matches!(err, ScaffoldError::NotEmpty { .. }), "{err}");
    // An empty directory is fine.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    new_plugin(&spec(Lang::Rust, &[], &empty)).unwrap();
    assert!(empty.join("src/lib.rs").is_file());
}

#[test]
fn contracts_are_written_one_directory_per_version_and_never_over_other_text() {
    let tmp = tempfile::tempdir().unwrap();
    let written = write_contracts(tmp.path(), &ContractVersion::ALL).unwrap();
    assert_eq!(written.len(), ContractVersion::ALL.len());
    assert!(tmp.path().join("v0.1.0/resource.wit").is_file());
    // The same again is fine; another text is refused, and kept.
    write_contracts(tmp.path(), &ContractVersion::ALL).unwrap();
    let path = tmp.path().join("v0.2.0/resource.wit");
    std::fs::write(&path, "mine").unwrap();
    let err = write_contracts(tmp.path(), &[ContractVersion::CURRENT]).unwrap_err();
    assert!(matches!(err, ScaffoldError::Exists { .. }), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
}
