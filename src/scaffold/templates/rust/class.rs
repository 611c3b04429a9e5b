
/// @@DESCRIPTION@@.
struct @@CLASS@@;

impl Class for @@CLASS@@ {
    fn name(&self) -> &'static str {
        "@@CLASS@@"
    }

    fn description(&self) -> &'static str {
        "@@DESCRIPTION@@"
    }

    fn validate(&self, args: &[Property]) -> Result<Vec<Property>, HandlerError> {
        let path = arg(args, "path")?;
        let entries = std::fs::read_dir(path)
            .map_err(|e| HandlerError::InvalidArgs(format!("{path} is not a directory: {e}")))?
            .count();
        let message = format!("{}: {path} holds {entries} entries", self.name());
        log(LogLevel::Info, &message);
        Ok(vec![property("entries", entries.to_string())])
    }

    fn discover(&self, _r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        // A child is a `Discovered` of an existing type, at a location inside
        // the resource's (relative to it, or absolute), named below it:
        // Discovered { type_name: "fs-directory".into(), name: Some("src".into()),
        //              location: Some("src".into()), properties: vec![], content_hash: None }
        Ok(Vec::new())
    }

    fn inspect(&self, r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        let location = r.location.clone().unwrap_or_default();
        Ok(Inspection {
            text: format!("{} at {location}\n", self.name()),
            fields: vec![property("location", location)],
        })
    }
}
