//! Credentials a registry holds from before they were kept out: the one
//! pass that removes them, once per registry.
//!
//! Since [`crate::credentials`] is applied where handler answers are
//! checked (and a text argument holding one is refused), no new row can
//! hold a URL's user information. Rows written by an earlier binary may:
//! a remote's `url` property with a token, stored, shown and exported.
//! The first time a registry is opened by this binary, every resource's
//! properties are scrubbed in one write transaction — identities
//! reconciled after, as after any write, so a remote's identity is keyed
//! by the URL without the token — and `registry_meta` records that it was
//! done (`credentials_scrubbed`), so later opens pay one read. A shared
//! registry is scrubbed by whichever process gets there first; a binary
//! older than this one, still writing to it, could store a credential
//! again, which is why every teammate's binary must be this one or newer.

use crate::registry::resources::equivalence;
use crate::registry::{CREDENTIALS_KEY, Registry, RegistryError};

impl Registry {
    /// Remove the credentials stored rows hold (see the module doc),
    /// unless `registry_meta` says it was done.
    pub(crate) fn scrub_stored_credentials(&mut self) -> Result<(), RegistryError> {
        let now = self.now();
        let (cache, ids, clock) = (&self.types, &self.ids, &self.clock);
        let scrubbed = self.store.write(|w| {
            if w.meta(CREDENTIALS_KEY)?.is_some() {
                return Ok(0); // another process got here first
            }
            let mut scrubbed = 0;
            for mut row in w.resources(None)? {
                if crate::credentials::scrub_properties(&mut row.properties) > 0 {
                    w.update_resource_findings(
                        row.id,
                        &row.properties,
                        row.content_hash.as_deref(),
                        &now,
                    )?;
                    scrubbed += 1;
                }
            }
            if scrubbed > 0 {
                let types = cache.get(w)?;
                equivalence::reconcile(w, &types, &|| ids.next_id(clock.now()), &now)?;
            }
            w.set_meta(CREDENTIALS_KEY, &now)?;
            Ok::<_, RegistryError>(scrubbed)
        })?;
        if scrubbed > 0 {
            log::warn!(
                target: "registry",
                "removed the credentials (a URL's user information) from the properties of {scrubbed} \
                 resource(s) an earlier agents stored; the registry keeps none"
            );
        }
        Ok(())
    }
}
