//! The precedence table exhaustively: every combination of plan and
//! project settings (absent, override, fallback; a container or the
//! host), a detected devcontainer or none, and each tool preference,
//! checked against a reference model written the other way round (collect
//! every applicable level, take the highest priority).

use super::*;

fn resource(n: u8, name: &str, ty: &str) -> Environment {
    let mut bytes = [0u8; 16];
    bytes[15] = n;
    Environment::Resource {
        resource_id: ResourceId::from_ulid(ulid::Ulid::from_bytes(bytes)),
        name: name.to_owned(),
        resource_type_name: ty.to_owned(),
    }
}

fn plan_env() -> Environment {
    resource(1, "local/plan-box", "container-instance")
}
fn project_env() -> Environment {
    resource(2, "local/project-box", "container-instance")
}
fn devcontainer() -> Environment {
    resource(3, "local/repo-devcontainer", "devcontainer-instance")
}

/// The reference model: the applicable levels, highest priority first.
fn model(inputs: &RouteInputs) -> (Environment, u8) {
    let mut applicable: Vec<(u8, Environment)> = vec![(6, Environment::Host)];
    if let Some((_, s)) = &inputs.plan {
        applicable.push((
            if s.priority == Priority::Override {
                1
            } else {
                4
            },
            s.environment.clone(),
        ));
    }
    if let Some(s) = &inputs.project {
        applicable.push((
            if s.priority == Priority::Override {
                2
            } else {
                5
            },
            s.environment.clone(),
        ));
    }
    if let Some(d) = &inputs.devcontainer {
        applicable.push((3, d.environment.clone()));
    }
    applicable.sort_by_key(|(n, _)| *n);
    let (n, env) = applicable.remove(0);
    (env, n)
}

fn settings(env: Environment) -> Vec<Option<Setting>> {
    let mut out = vec![None];
    for priority in [Priority::Override, Priority::Fallback] {
        out.push(Some(Setting {
            environment: env.clone(),
            priority,
        }));
        out.push(Some(Setting {
            environment: Environment::Host,
            priority,
        }));
    }
    out
}

#[test]
fn every_combination_of_the_six_levels_and_the_tool_preferences() {
    let tools = [
        ToolPreference::None,
        ToolPreference::RequiredContainer,
        ToolPreference::PreferredContainer,
        ToolPreference::Specific {
            environment: resource(9, "local/special", "container-instance"),
            is_environment: true,
        },
        ToolPreference::Specific {
            environment: resource(8, "local/a-directory", "fs-directory"),
            is_environment: false,
        },
    ];
    let mut cases = 0;
    for plan in settings(plan_env()) {
        for project in settings(project_env()) {
            for dc in [
                None,
                Some(Detected {
                    environment: devcontainer(),
                    via: "local/repo".into(),
                    distance: 2,
                }),
            ] {
                for tool in &tools {
                    cases += 1;
                    let inputs = RouteInputs {
                        plan: plan.clone().map(|s| ("default".to_owned(), s)),
                        project: project.clone(),
                        devcontainer: dc.clone(),
                        passed_over: Vec::new(),
                        ambiguous: None,
                        tool: tool.clone(),
                    };
                    let (want_env, want_level) = model(&inputs);
                    let got = route(&inputs);
                    match tool {
                        ToolPreference::Specific {
                            is_environment: false,
                            environment,
                        } => {
                            let err = got.unwrap_err();
                            assert_eq!(
                                err,
                                RouteError::NotAnEnvironment {
                                    environment: environment.to_string()
                                }
                            );
                        }
                        ToolPreference::Specific { environment, .. } => {
                            let r = got.unwrap();
                            assert_eq!(&r.environment, environment);
                            assert_eq!(r.level, Level::ToolSpecific);
                            assert_eq!(r.priority, 0);
                        }
                        ToolPreference::RequiredContainer if want_env.is_host() => {
                            match got.unwrap_err() {
                                RouteError::ContainerRequired { level, .. } => {
                                    assert_eq!(level.number(), want_level, "{inputs:?}");
                                }
                                other => panic!("{other:?}"),
                            }
                        }
                        _ => {
                            let r = got.unwrap();
                            assert_eq!(r.environment, want_env, "{inputs:?}");
                            assert_eq!(r.priority, want_level, "{inputs:?}");
                            assert_eq!(r.level.number(), want_level);
                            assert_eq!(
                                r.hint.is_some(),
                                *tool == ToolPreference::PreferredContainer
                            );
                        }
                    }
                }
            }
        }
    }
    assert_eq!(cases, 5 * 5 * 2 * 5);
}

#[test]
fn each_level_says_why() {
    let dc = Detected {
        environment: devcontainer(),
        via: "local/repo".into(),
        distance: 1,
    };
    let r = route(&RouteInputs {
        devcontainer: Some(dc.clone()),
        plan: Some((
            "nightly".into(),
            Setting {
                environment: plan_env(),
                priority: Priority::Fallback,
            },
        )),
        ..RouteInputs::default()
    })
    .unwrap();
    assert_eq!(r.level, Level::Devcontainer);
    assert!(
        r.reason
            .contains("local/repo holds the nearest devcontainer (1 link up)"),
        "{}",
        r.reason
    );
    let r = route(&RouteInputs {
        plan: Some((
            "nightly".into(),
            Setting {
                environment: plan_env(),
                priority: Priority::Fallback,
            },
        )),
        ..RouteInputs::default()
    })
    .unwrap();
    assert_eq!(r.level, Level::PlanFallback);
    assert!(
        r.reason.contains("plan nightly sets local/plan-box"),
        "{}",
        r.reason
    );
    let r = route(&RouteInputs::default()).unwrap();
    assert_eq!((r.level, r.environment), (Level::Host, Environment::Host));
}

#[test]
fn a_required_container_on_the_host_names_the_deciding_level_and_what_to_configure() {
    let err = route(&RouteInputs {
        project: Some(Setting {
            environment: Environment::Host,
            priority: Priority::Override,
        }),
        devcontainer: Some(Detected {
            environment: devcontainer(),
            via: "local/repo".into(),
            distance: 1,
        }),
        tool: ToolPreference::RequiredContainer,
        ..RouteInputs::default()
    })
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("level 2"), "{text}");
    assert!(
        text.contains("agents plan use --execution-environment"),
        "{text}"
    );
}

#[test]
fn a_preference_is_only_a_hint() {
    let r = route(&RouteInputs {
        tool: ToolPreference::PreferredContainer,
        ..RouteInputs::default()
    })
    .unwrap();
    assert!(r.environment.is_host());
    assert!(r.hint.unwrap().contains("hint only"));
}

#[test]
fn a_passed_over_devcontainer_is_named_in_the_reason_at_whatever_level_decides() {
    let passed = vec!["local/r/vendor/dep-devcontainer (not trusted)".to_owned()];
    let r = route(&RouteInputs {
        passed_over: passed.clone(),
        ..RouteInputs::default()
    })
    .unwrap();
    assert_eq!(r.level, Level::Host);
    assert!(
        r.reason.contains("passed over") && r.reason.contains("vendor/dep-devcontainer"),
        "{}",
        r.reason
    );
    assert_eq!(r.trust, None, "routing itself never asks about trust");
}

#[test]
fn several_devcontainers_with_no_default_are_refused_unless_the_tool_or_an_override_chooses() {
    let ambiguous = Some(Ambiguous {
        via: "local/mono".to_owned(),
        devcontainers: vec![
            "local/mono-devcontainer-api".to_owned(),
            "local/mono-devcontainer-web".to_owned(),
        ],
    });
    let refused = route(&RouteInputs {
        ambiguous: ambiguous.clone(),
        ..RouteInputs::default()
    })
    .unwrap_err();
    let text = refused.to_string();
    assert!(text.contains("local/mono holds 2 devcontainers"), "{text}");
    assert!(text.contains("specific:NAME"), "{text}");
    let web = resource(9, "local/mono-devcontainer-web", "devcontainer-instance");
    let chosen = route(&RouteInputs {
        ambiguous: ambiguous.clone(),
        tool: ToolPreference::Specific {
            environment: web.clone(),
            is_environment: true,
        },
        ..RouteInputs::default()
    })
    .unwrap();
    assert_eq!(chosen.environment, web);
    let overridden = route(&RouteInputs {
        ambiguous,
        project: Some(Setting {
            environment: web.clone(),
            priority: Priority::Override,
        }),
        ..RouteInputs::default()
    })
    .unwrap();
    assert_eq!(overridden.level, Level::ProjectOverride);
}
