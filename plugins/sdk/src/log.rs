//! Logging through the host's `log` import: the handler's lines appear in
//! the host's log (`agents -v`), labelled with module, class and operation.
//!
//! `resource_handler_sdk::log::info!("found {n} packages")` formats like
//! `format!`. The host bounds lines per call; the excess is dropped there.

pub use crate::bindings::cleveragents::resource::host::LogLevel as Level;

/// Send one line to the host's log.
pub fn write(level: Level, message: &str) {
    crate::bindings::cleveragents::resource::host::log(level, message);
}

#[doc(hidden)]
#[macro_export]
macro_rules! __log_at {
    ($level:ident, $($arg:tt)+) => {
        $crate::log::write($crate::log::Level::$level, &::std::format!($($arg)+))
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __log_trace { ($($arg:tt)+) => { $crate::__log_at!(Trace, $($arg)+) }; }
#[doc(hidden)]
#[macro_export]
macro_rules! __log_debug { ($($arg:tt)+) => { $crate::__log_at!(Debug, $($arg)+) }; }
#[doc(hidden)]
#[macro_export]
macro_rules! __log_info { ($($arg:tt)+) => { $crate::__log_at!(Info, $($arg)+) }; }
#[doc(hidden)]
#[macro_export]
macro_rules! __log_warn { ($($arg:tt)+) => { $crate::__log_at!(Warn, $($arg)+) }; }
#[doc(hidden)]
#[macro_export]
macro_rules! __log_error { ($($arg:tt)+) => { $crate::__log_at!(Error, $($arg)+) }; }

pub use crate::{
    __log_debug as debug, __log_error as error, __log_info as info, __log_trace as trace,
    __log_warn as warn,
};
