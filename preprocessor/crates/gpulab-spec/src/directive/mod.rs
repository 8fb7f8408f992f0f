//! The validated directive model and the parser that produces it.

pub mod fence;
pub mod inline;
pub mod metrics;
pub mod model;
pub mod raw;
pub mod validate;

pub use model::*;
