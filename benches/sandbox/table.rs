//! The figures of the sandbox benchmarks: the one home of how samples
//! become a median, min and max, how an operation is compared with its
//! baseline and its goal, and how both the per-part tables and the final
//! summary are printed (markdown).

use std::time::Duration;

/// "≪" as a number: an order of magnitude under the baseline.
const MUCH_LESS: f64 = 0.1;

/// The wall times of one operation, one per run.
#[derive(Debug, Default)]
pub struct Samples(pub Vec<Duration>);

impl Samples {
    fn sorted(&self) -> Vec<Duration> {
        let mut v = self.0.clone();
        v.sort();
        v
    }
    pub fn median(&self) -> Duration {
        let v = self.sorted();
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2
        }
    }
    fn min(&self) -> Duration {
        self.sorted()[0]
    }
    fn max(&self) -> Duration {
        self.sorted()[self.0.len() - 1]
    }
}

pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

#[derive(Debug, Clone, Copy)]
pub enum Goal {
    AtMost(f64),
    MuchLess,
    None,
}

impl Goal {
    fn text(self) -> String {
        match self {
            Goal::AtMost(x) => format!("≤ {x:.1}×"),
            Goal::MuchLess => format!("≪ 1× (≤ {MUCH_LESS}×)"),
            Goal::None => "—".into(),
        }
    }
    fn met(self, ratio: f64) -> &'static str {
        match self {
            Goal::AtMost(x) if ratio <= x => "yes",
            Goal::MuchLess if ratio <= MUCH_LESS => "yes",
            Goal::None => "—",
            _ => "**no**",
        }
    }
}

/// One operation of a part, with the baseline it is compared with.
#[derive(Debug)]
pub struct Line<'a> {
    op: &'a str,
    samples: &'a Samples,
    baseline: Option<(&'a str, &'a Samples)>,
    goal: Goal,
}

impl<'a> Line<'a> {
    pub fn new(
        op: &'a str,
        samples: &'a Samples,
        baseline: Option<(&'a str, &'a Samples)>,
        goal: Goal,
    ) -> Self {
        Self {
            op,
            samples,
            baseline,
            goal,
        }
    }
}

/// A line of the final summary.
#[derive(Debug)]
pub struct Row {
    op: String,
    median: Duration,
    baseline: Duration,
    goal: Goal,
}

impl Row {
    fn ratio(&self) -> f64 {
        self.median.as_secs_f64() / self.baseline.as_secs_f64()
    }
}

pub fn print_part(lines: &[Line<'_>], summary: &mut Vec<Row>) {
    println!("| operation | median | min | max | baseline (median) | ratio | goal |");
    println!("|---|---|---|---|---|---|---|");
    for line in lines {
        let s = line.samples;
        let (against, ratio) = match line.baseline {
            Some((name, base)) => {
                let row = Row {
                    op: format!("{} (vs {name})", line.op),
                    median: s.median(),
                    baseline: base.median(),
                    goal: line.goal,
                };
                let ratio = format!("{:.2}×", row.ratio());
                let against = format!("{name}: {}", ms(row.baseline));
                summary.push(row);
                (against, ratio)
            }
            None => ("—".into(), "—".into()),
        };
        println!(
            "| {} | {} | {} | {} | {against} | {ratio} | {} |",
            line.op,
            ms(s.median()),
            ms(s.min()),
            ms(s.max()),
            line.goal.text()
        );
    }
    println!();
}

pub fn print_summary(rows: &[Row]) {
    println!("## Summary\n");
    println!("| operation | median ms | baseline ms | ratio | goal | met? |");
    println!("|---|---|---|---|---|---|");
    for row in rows {
        println!(
            "| {} | {:.1} | {:.1} | {:.2}× | {} | {} |",
            row.op,
            row.median.as_secs_f64() * 1e3,
            row.baseline.as_secs_f64() * 1e3,
            row.ratio(),
            row.goal.text(),
            row.goal.met(row.ratio())
        );
    }
}
