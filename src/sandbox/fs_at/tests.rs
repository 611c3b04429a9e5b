//! The descriptor walkers' own rules, each checked against a swap made
//! the way a hostile agent would make it.
