//! `agents resource list`: the filters, the order and the limit on the
//! command line, and the table with its footer (`N resources (M shown)`,
//! on a terminal only: a pipe gets the rows alone).

use super::text::resource_table;
use crate::cli::output::{Format, emit};
use crate::cli::{Context, Outcome};
use resource_host::model::ResourceKey;
use resource_host::registry::{ListOptions, ListOrder, ResourceFilter};
use std::io::IsTerminal;

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Only resources of this type (and its subtypes, unless --exact).
    #[arg(long = "type", value_name = "TYPE")]
    type_name: Option<String>,
    /// With --type: that exact type, not its subtypes.
    #[arg(long, requires = "type_name")]
    exact: bool,
    /// Only names matching GLOB (`*` any characters, `/` included; `?` one; `\*` a `*`).
    #[arg(long, value_name = "GLOB")]
    name: Option<String>,
    /// Only the resources below this one (its descendants).
    #[arg(long, value_name = "NAME_OR_ID", value_parser = crate::cli::keys::key_arg)]
    under: Option<ResourceKey>,
    /// Show at most N (the footer on a terminal says how many matched).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
    /// The order: natural order of the names (f1, f2, f10), or registration order.
    #[arg(long, value_enum, default_value_t = SortArg::Name)]
    sort: SortArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SortArg {
    Name,
    Registered,
}

/// `resource list [--type T [--exact]] [--name GLOB] [--under KEY] [--limit N] [--sort S]`.
pub(in crate::cli) fn run(ctx: &Context, args: ListArgs) -> Outcome {
    let opts = ListOptions {
        filter: match (args.type_name, args.exact) {
            (None, _) => ResourceFilter::All,
            (Some(t), false) => ResourceFilter::TypeOrSubtype(t),
            (Some(t), true) => ResourceFilter::ExactType(t),
        },
        name: args.name,
        under: args.under,
        limit: args.limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        order: match args.sort {
            SortArg::Name => ListOrder::Name,
            SortArg::Registered => ListOrder::Registered,
        },
    };
    let list = ctx.open()?.list(&opts)?;
    emit(ctx.format, &list.resources, || {
        let mut text = resource_table(&list.resources);
        if ctx.format == Format::Table && std::io::stdout().is_terminal() {
            text.push_str(&footer(list.total, list.resources.len()));
        }
        text
    })
}

/// `2,000 resources (40 shown)`.
fn footer(total: usize, shown: usize) -> String {
    let noun = if total == 1 { "resource" } else { "resources" };
    format!("{} {noun} ({} shown)\n", thousands(total), thousands(shown))
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_footer_counts_with_thousands_separators() {
        assert_eq!(super::footer(2000, 40), "2,000 resources (40 shown)\n");
        assert_eq!(super::footer(1, 1), "1 resource (1 shown)\n");
        assert_eq!(
            super::footer(1_234_567, 0),
            "1,234,567 resources (0 shown)\n"
        );
    }
}
