//! The answer bounds' checks of text and property lists, each refusal an
//! [`AnswerRefusal`] that names what was too big.

use super::AnswerRefusal;
use crate::plugin::limits::AnswerBounds;
use crate::text::quote;

impl AnswerBounds {
    /// Refuse `text` (named `what`) longer than `max` bytes. `what` is
    /// formatted only for the refusal (answers are checked by the
    /// thousand).
    pub(crate) fn check_len(
        what: impl std::fmt::Display,
        text: &str,
        max: usize,
    ) -> Result<(), AnswerRefusal> {
        if text.len() > max {
            Err(AnswerRefusal::TooLong {
                what: what.to_string(),
                len: text.len(),
                max,
            })
        } else {
            Ok(())
        }
    }

    /// Refuse a property list that is too long, has an oversized or empty
    /// key or value, or repeats a key.
    pub(crate) fn check_properties(
        &self,
        what: impl std::fmt::Display,
        props: &[(String, String)],
    ) -> Result<(), AnswerRefusal> {
        if props.len() > self.max_properties {
            return Err(AnswerRefusal::TooManyProperties {
                what: what.to_string(),
                count: props.len(),
                max: self.max_properties,
            });
        }
        let max = self.max_string_bytes;
        let mut seen = std::collections::HashSet::new();
        for (i, (key, value)) in props.iter().enumerate() {
            if key.is_empty() {
                return Err(AnswerRefusal::EmptyPropertyKey {
                    what: what.to_string(),
                });
            }
            if key.len() > max {
                let quoted = quote(key);
                return Self::check_len(format_args!("{what}: key {quoted}"), key, max);
            }
            if value.len() > max {
                let quoted = quote(key);
                return Self::check_len(format_args!("{what}: value of {quoted}"), value, max);
            }
            // A handful of properties is the rule: a scan beats a set.
            let repeated = if props.len() <= 32 {
                props[..i].iter().any(|(k, _)| k == key)
            } else {
                !seen.insert(key.as_str())
            };
            if repeated {
                return Err(AnswerRefusal::RepeatedProperty {
                    what: what.to_string(),
                    key: key.clone(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_property_list_with_a_repeated_key_is_refused() {
        let bounds = AnswerBounds::default();
        let err = bounds
            .check_properties("validate's answer", &props(&[("a", "1"), ("a", "2")]))
            .unwrap_err()
            .to_string();
        assert_eq!(err, "validate's answer repeats property \"a\"");
    }

    #[test]
    fn an_oversized_value_is_refused_with_its_size() {
        let bounds = AnswerBounds {
            max_string_bytes: 4,
            ..AnswerBounds::default()
        };
        let err = bounds
            .check_properties("child 0", &props(&[("k", "12345")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("5 bytes, more than the 4 allowed"), "{err}");
    }

    #[test]
    fn too_many_properties_are_refused() {
        let bounds = AnswerBounds {
            max_properties: 1,
            ..AnswerBounds::default()
        };
        assert!(
            bounds
                .check_properties("x", &props(&[("a", "1"), ("b", "2")]))
                .is_err()
        );
    }
}
