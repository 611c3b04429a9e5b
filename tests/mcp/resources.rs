//! Registered resources as MCP resources: listed, read, templated, and
//! paged through.

use super::scenario;
use crate::common::Env;

#[test]
fn registered_resources_are_listed_read_and_templated() {
    for mode in ["legacy", "auto", "ts"] {
        let env = Env::new();
        for i in 0..3 {
            env.write(&format!("d{i}/f.txt"), "f\n");
        }
        let Some(seen) = scenario(&env, "resources", mode) else {
            return;
        };
        assert_eq!(seen["uris"].as_array().unwrap().len(), 3, "{seen}");
    }
}

#[test]
fn resources_list_pages_through_every_registered_resource() {
    for mode in ["legacy", "ts"] {
        let env = Env::new();
        let Some(seen) = scenario(&env, "pages", mode) else {
            return;
        };
        assert_eq!(seen["count"], 205, "{mode}: {seen}");
        assert_eq!(seen["pages"], 3, "{mode}: {seen}");
        assert!(
            seen["bad_cursor"]
                .as_str()
                .unwrap()
                .contains("not a cursor"),
            "{mode}: {seen}"
        );
    }
}
