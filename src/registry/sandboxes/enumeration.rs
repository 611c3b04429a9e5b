//! Local mode at sandbox creation and show: which rules a sandboxed
//! resource's type has, where its working copy is, and whose answer says
//! what each rule lists ([`local_mode`] walks the copy; a plugin's
//! handler is asked about each entry its rule's pattern matches).

use super::{SandboxView, local_mode};
use crate::model::SandboxState;
use crate::registry::{Registry, RegistryError};

impl Registry {
    /// Local mode: what the rules of the sandboxed resource's type find in
    /// the working copy, when the type has rules and no handler (none
    /// otherwise, and for a sandbox that is not active).
    pub(super) fn local_enumeration(
        &self,
        sandbox: &SandboxView,
    ) -> Result<Option<Vec<local_mode::RuleEntries>>, RegistryError> {
        if sandbox.state != SandboxState::Active {
            return Ok(None);
        }
        let id = sandbox.sandbox_id;
        let (types, resource, row) = self.store.read(|r| {
            let resource = r.resource_by_id(sandbox.resource_id)?;
            Ok::<_, RegistryError>((self.types.get(r)?, resource, r.sandbox(id)?))
        })?;
        let (Some(resource), Some(row)) = (resource, row) else {
            return Ok(None);
        };
        let ty = types.resolve(&resource.type_name)?;
        let rules = match ty.discovery() {
            Some(rules) if ty.has_discovery_rules() && self.handler_for(&ty)?.is_none() => rules,
            _ => return Ok(None),
        };
        // The working copy where the home says it is, never where the row
        // says: a row that disagrees is not listed (its operations refuse
        // it, saying why).
        let root = self.sandboxes_root()?;
        let Ok(at) = self.placed(root, &row, resource.location.as_deref()) else {
            return Ok(None);
        };
        let workdir = at.place.workdir;
        // Each rule lists what its type stands for: the built-in types by
        // what their handler would call an entry, a type a plugin handles
        // by asking that handler about each entry its pattern matches.
        let plugin_handler = |rule: &crate::model::DiscoveryRule| {
            let ty = types.resolve(&rule.type_name).ok()?;
            let reserved = ty.handler_ref()?.module.is_reserved();
            (!reserved).then(|| self.handler_for(&ty).ok().flatten())?
        };
        let wanted = |rule: &crate::model::DiscoveryRule| {
            if plugin_handler(rule).is_some() {
                return local_mode::Wanted::Any;
            }
            let ty = types.resolve(&rule.type_name).ok();
            local_mode::wanted_by(&|t| ty.as_ref().is_some_and(|ty| ty.is_a(t)))
        };
        let mut listed = local_mode::enumerate(rules, &workdir, &wanted).map_err(|source| {
            RegistryError::ReadFile {
                what: "the sandbox's working copy",
                path: workdir.clone(),
                source,
            }
        })?;
        for (found, rule) in listed.iter_mut().zip(&rules.rules) {
            let Some(handler) = plugin_handler(rule) else {
                continue;
            };
            // The handler's own refusal leaves an entry out; a fault (a
            // trap, the deadline, its memory cap, an answer the host
            // refuses) stops asking it: a hostile handler costs one
            // deadline per rule, not one per entry.
            let mut faulted = false;
            found.entries.retain(|entry| {
                if faulted {
                    return false;
                }
                let mut probe = resource.clone();
                probe.type_name = rule.type_name.clone();
                probe.location = Some(workdir.join(entry).to_string_lossy().into_owned());
                probe.properties = Default::default();
                probe.auto_discovered = true;
                match self.call_validate(&handler, &probe) {
                    Ok(_) => true,
                    Err(RegistryError::Handler(call))
                        if matches!(call.kind, crate::plugin::CallErrorKind::Handler(_)) =>
                    {
                        false
                    }
                    Err(fault) => {
                        log::warn!(
                            "local mode: stopped asking about {}: {fault}",
                            rule.type_name
                        );
                        faulted = true;
                        false
                    }
                }
            });
            found.truncated |= faulted;
        }
        Ok(Some(listed))
    }
}
