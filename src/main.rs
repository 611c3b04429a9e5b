//! `agents`: the command-line face of the resource registry. All logic
//! lives in the `resource_host` library; see `cli/` for the verbs.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
