//! The words of a lifecycle command: the one home of how the host reads a
//! command the way `/bin/sh` will, to find every file it names — and of
//! what makes a command that runs **on the host** (`initializeCommand`)
//! impossible to cover, and so refused.
//!
//! A string command is a shell script (the CLI runs `/bin/sh -c TEXT`); an
//! array is an argv run without a shell — but its program may itself be a
//! shell handed a script (`["sh", "-c", "…"]`), so each element is read as
//! a script too; an object runs each of its values. Reading a script here
//! splits it into words at unquoted blanks and at the shell's operators
//! (`;`, `&`, `|`, `<`, `>`, `(`, `)`), so `cd x&&sh y.sh`, `sh <y.sh` and
//! `2>log` name `y.sh` and `log` as the shell will; quotes are removed as
//! the shell removes them; a word that still holds blanks or operators (the
//! script of an `sh -c '…'`) is read again as a script of its own, to a
//! bounded depth.
//!
//! For a command run on the host, what the host cannot follow is refused
//! ([`HostWords::Refused`]) rather than skipped: an expansion (`$VAR`,
//! `$(…)`, a backquote), a pattern (`*`, `?`, `[`), a `~`, a change of
//! directory (`cd`, `pushd`), more than [`MAX_WORDS`] words. What remains
//! is a list of literal words, each of which the caller resolves from the
//! workspace: a file in the repository is covered by the digest, a path
//! that does not exist yet is recorded as absent (so one that appears later
//! changes the digest), and anything else is refused.

use serde_json::Value;

/// The most words one command may hold to be covered.
pub const MAX_WORDS: usize = 256;

/// How many times a word may be read again as a script.
const MAX_NESTING: usize = 4;

/// The words of a host command, or why it cannot be covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostWords {
    Words(Vec<Word>),
    Refused(String),
}

/// A literal word of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// Found by reading a word again as a script (`sh -c '…'`): it may be
    /// only a piece of a path that holds a blank, so it is covered when it
    /// names a file of the repository and left otherwise.
    pub nested: bool,
}

/// One command of a lifecycle key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// `key`, or `key.name` for each of an object's.
    pub name: String,
    /// A string's text, or an array's elements.
    pub texts: Vec<String>,
    /// Run without a shell (an array)?
    pub array: bool,
}

/// Each command of lifecycle key `key` in `json`.
pub fn commands(json: &Value, key: &str) -> Vec<Command> {
    let one = |name: String, v: &Value| -> Option<Command> {
        match v {
            Value::String(s) => Some(Command {
                name,
                texts: vec![s.clone()],
                array: false,
            }),
            Value::Array(items) => Some(Command {
                name,
                texts: items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_owned))
                    .collect(),
                array: true,
            }),
            _ => None,
        }
    };
    match json.get(key) {
        Some(Value::Object(each)) => each
            .iter()
            .filter_map(|(name, v)| one(format!("{key}.{name}"), v))
            .collect(),
        Some(v) => one(key.to_owned(), v).into_iter().collect(),
        None => Vec::new(),
    }
}

/// The command as a person reads it (an array's elements joined by
/// blanks, each quoted when it holds any).
pub fn shown(command: &Command) -> String {
    if !command.array {
        return command.texts.join(" ");
    }
    command
        .texts
        .iter()
        .map(|t| {
            if t.is_empty() || t.contains(char::is_whitespace) {
                format!("'{t}'")
            } else {
                t.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of a command run on the host (module doc).
pub fn host_words(command: &Command) -> HostWords {
    let count: usize = command
        .texts
        .iter()
        .map(|t| t.split_whitespace().count())
        .sum();
    if count > MAX_WORDS {
        return HostWords::Refused(format!(
            "it has more than {MAX_WORDS} words: too long for the host to cover every file it \
             names; move it into a script in the repository and run that"
        ));
    }
    let mut out = Vec::new();
    if let Err(why) = command_words(command, true, &mut out) {
        return HostWords::Refused(why);
    }
    let out = out
        .into_iter()
        .map(|(text, depth)| Word {
            text,
            nested: depth > 0,
        })
        .collect::<Vec<_>>();
    if out.len() > MAX_WORDS {
        return HostWords::Refused(format!(
            "it has more than {MAX_WORDS} words: too long for the host to cover every file it \
             names; move it into a script in the repository and run that"
        ));
    }
    HostWords::Words(out)
}

/// The literal words of the texts of a command run in the container: as
/// [`host_words`], but a word the host cannot follow is left out instead
/// of refusing the command (what runs in the container reaches the host
/// only through what the summary shows).
pub fn container_words(command: &Command) -> Vec<String> {
    let mut out = Vec::new();
    let _ = command_words(command, false, &mut out);
    out.into_iter().map(|(text, _)| text).collect()
}

/// The words of `command`, each with how deep it was found: a string is a
/// script; an array's elements are words as they are (its first is the
/// program, found on `PATH` when it has no '/'), each also read as a
/// script of its own, one level down.
fn command_words(
    command: &Command,
    strict: bool,
    out: &mut Vec<(String, usize)>,
) -> Result<(), String> {
    if !command.array {
        for text in &command.texts {
            script_words(text, 0, strict, true, out)?;
        }
        return Ok(());
    }
    for (i, text) in command.texts.iter().enumerate() {
        if (i != 0 || text.contains('/')) && !text.is_empty() {
            out.push((text.clone(), 0));
        }
        script_words(text, 1, strict, i == 0, out)?;
    }
    Ok(())
}

/// A part of a word, and whether the shell sees it quoted.
struct Piece {
    text: String,
    quoted: bool,
}

/// Adds the words of `script` to `out`; in `strict` mode the first thing
/// the host cannot follow is the error.
fn script_words(
    script: &str,
    depth: usize,
    strict: bool,
    at_command: bool,
    out: &mut Vec<(String, usize)>,
) -> Result<(), String> {
    let mut word: Vec<Piece> = Vec::new();
    let mut chars = script.chars().peekable();
    // Each word, and whether it stands where a command's name does (the
    // shell looks a name without '/' up on PATH: it names no file here).
    // (An assignment before a command, `X=1 cmd`, names nothing: its value
    // is used only through an expansion, which is refused.)
    let mut words: Vec<(Vec<Piece>, bool)> = Vec::new();
    let mut command = at_command;
    let flush = |word: &mut Vec<Piece>, words: &mut Vec<(Vec<Piece>, bool)>, command: &mut bool| {
        if word.is_empty() {
            return;
        }
        let assignment = *command
            && word.first().is_some_and(|p| !p.quoted && p.text != "=")
            && word.iter().take_while(|p| !p.quoted).any(|p| p.text == "=");
        if assignment {
            word.clear();
            return;
        }
        words.push((std::mem::take(word), *command));
        *command = false;
    };
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => flush(&mut word, &mut words, &mut command),
            ';' | '&' | '|' | '(' | ')' => {
                flush(&mut word, &mut words, &mut command);
                command = true;
            }
            '<' | '>' => {
                flush(&mut word, &mut words, &mut command);
            }
            '\'' => {
                let mut text = String::new();
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    text.push(c);
                }
                word.push(Piece { text, quoted: true });
            }
            '"' => {
                let mut text = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(next) = chars.next() {
                                if !matches!(next, '$' | '`' | '"' | '\\' | '\n') {
                                    text.push('\\');
                                }
                                text.push(next);
                            }
                        }
                        '$' | '`' => {
                            return refuse(strict, expansion(script));
                        }
                        c => text.push(c),
                    }
                }
                word.push(Piece { text, quoted: true });
            }
            '\\' => {
                if let Some(next) = chars.next() {
                    word.push(Piece {
                        text: next.to_string(),
                        quoted: true,
                    });
                }
            }
            '$' | '`' => return refuse(strict, expansion(script)),
            '*' | '?' | '[' => {
                return refuse(
                    strict,
                    format!(
                        "{} holds the pattern character {c:?}: the shell expands it to files the \
                         host cannot know in advance; name each file",
                        crate::text::quote(script)
                    ),
                );
            }
            '~' if word.is_empty() => {
                return refuse(
                    strict,
                    format!(
                        "{} starts a word with '~' (a home directory, outside the repository)",
                        crate::text::quote(script)
                    ),
                );
            }
            c => word.push(Piece {
                text: c.to_string(),
                quoted: false,
            }),
        }
    }
    flush(&mut word, &mut words, &mut command);
    for (pieces, is_command) in words {
        let text: String = pieces.iter().map(|p| p.text.as_str()).collect();
        let unquoted = pieces.iter().all(|p| !p.quoted);
        if unquoted && matches!(text.as_str(), "cd" | "pushd" | "popd") {
            return refuse(
                strict,
                format!(
                    "{} changes directory ({text}): the words after it would name files the host \
                     resolves from elsewhere; name files from the workspace folder instead",
                    crate::text::quote(script)
                ),
            );
        }
        let nested = text
            .chars()
            .any(|c| c.is_whitespace() || ";&|<>()$`'\"\\*?[~".contains(c));
        if nested && text != script {
            if depth == MAX_NESTING {
                return refuse(
                    strict,
                    format!(
                        "{} nests scripts in quotes more than {MAX_NESTING} deep",
                        crate::text::quote(script)
                    ),
                );
            }
            // The word itself (a file may be named so), and the words of
            // the script it may be.
            out.push((text.clone(), depth));
            script_words(&text, depth + 1, strict, true, out)?;
            continue;
        }
        if is_command && !text.contains('/') {
            continue;
        }
        // `--file=x.sh`: the value is a word too.
        if let Some((_, value)) = text.split_once('=')
            && text.starts_with('-')
            && !value.is_empty()
        {
            out.push((value.to_owned(), depth));
        }
        out.push((text, depth));
    }
    Ok(())
}

fn refuse(strict: bool, why: String) -> Result<(), String> {
    if strict { Err(why) } else { Ok(()) }
}

fn expansion(script: &str) -> String {
    format!(
        "{} holds a shell expansion ($ or `): what it names is known only when it runs, so the \
         host cannot cover it; write the path itself (${{localWorkspaceFolder}} is replaced \
         before the command runs)",
        crate::text::quote(script)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(script: &str) -> Command {
        Command {
            name: "initializeCommand".into(),
            texts: vec![script.to_owned()],
            array: false,
        }
    }

    fn words(script: &str) -> Vec<String> {
        match host_words(&command(script)) {
            HostWords::Words(w) => w.into_iter().map(|w| w.text).collect(),
            HostWords::Refused(why) => panic!("{script}: {why}"),
        }
    }

    fn refused(script: &str) -> String {
        match host_words(&command(script)) {
            HostWords::Words(w) => panic!("{script} was read as {w:?}"),
            HostWords::Refused(why) => why,
        }
    }

    #[test]
    fn operators_redirections_and_quotes_split_words_as_the_shell_does() {
        // A command's name without '/' is looked up on PATH: no file.
        assert_eq!(words("sh <init.sh"), ["init.sh"]);
        assert_eq!(words("a&&sh x.sh;b|c 2>log"), ["x.sh", "2", "log"]);
        assert_eq!(words("./run.sh x; X=1 ./b"), ["./run.sh", "x", "./b"]);
        assert_eq!(words("sh 'my script.sh'"), ["my script.sh", "script.sh"]);
        assert_eq!(
            words(r#"sh -c "sh .devcontainer/i.sh""#),
            ["-c", "sh .devcontainer/i.sh", ".devcontainer/i.sh"]
        );
        assert_eq!(words("bash --rcfile=rc x"), ["rc", "--rcfile=rc", "x"]);
        assert_eq!(words(r"sh a\ b"), ["a b", "b"]);
    }

    #[test]
    fn what_the_host_cannot_follow_on_the_host_is_refused() {
        for (script, needle) in [
            ("sh $HOME/x.sh", "expansion"),
            ("sh \"$(pwd)/x.sh\"", "expansion"),
            ("sh `pwd`/x.sh", "expansion"),
            ("cd .devcontainer && sh init.sh", "changes directory"),
            ("sh -c 'cd sub; sh x.sh'", "changes directory"),
            ("sh *.sh", "pattern"),
            ("sh ~/x.sh", "home"),
        ] {
            let why = refused(script);
            assert!(why.contains(needle), "{script}: {why}");
        }
        let long = vec!["w"; MAX_WORDS + 1].join(" ");
        assert!(refused(&long).contains("more than"));
    }

    #[test]
    fn in_the_container_what_cannot_be_followed_is_left_out() {
        assert_eq!(
            container_words(&command("sh $X; sh y.sh")),
            Vec::<String>::new()
        );
        assert_eq!(container_words(&command("sh y.sh")), ["y.sh"]);
    }

    #[test]
    fn an_arrays_arguments_are_words_whatever_they_look_like() {
        let argv = Command {
            name: "initializeCommand".into(),
            texts: vec!["sh".into(), "init.sh".into(), "-c".into()],
            array: true,
        };
        let HostWords::Words(words) = host_words(&argv) else {
            panic!("refused")
        };
        let top: Vec<&str> = words
            .iter()
            .filter(|w| !w.nested)
            .map(|w| w.text.as_str())
            .collect();
        assert_eq!(top, ["init.sh", "-c"]);
        // An element with a blank is one word (a path may hold one); its
        // pieces are only tried.
        let spaced = Command {
            texts: vec!["sh".into(), "/my repo/x.sh".into()],
            ..argv
        };
        let HostWords::Words(words) = host_words(&spaced) else {
            panic!("refused")
        };
        assert!(words.contains(&Word {
            text: "/my repo/x.sh".into(),
            nested: false
        }));
        assert!(words.contains(&Word {
            text: "/my".into(),
            nested: true
        }));
    }
}
