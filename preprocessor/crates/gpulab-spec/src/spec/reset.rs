//! `[[buffer]] reset`: validated against the buffer's `init` and `constant`.

use super::Checker;
use crate::diagnostic::did_you_mean;
use crate::spec::model::{Init, Reset};
use crate::spec::raw::RawBuffer;

/// The buffer's reset, or `None` after reporting why it is invalid.
pub(super) fn validate(c: &mut Checker, b: &RawBuffer, init: Option<&Init>) -> Option<Reset> {
    let Some(raw) = &b.reset else {
        return Some(Reset::None);
    };
    let Some(reset) = Reset::parse(raw.get_ref()) else {
        c.err_help(
            raw.span(),
            format!("unknown `reset = \"{}\"`", raw.get_ref()),
            "expected \"none\", \"init\" or \"zero\"",
            did_you_mean(raw.get_ref(), Reset::NAMES),
        );
        return None;
    };
    if reset.every_run() && b.constant {
        c.err(
            raw.span(),
            "a `constant = true` buffer is read-only on the device: there is nothing to reset",
            "drop `reset` (or `constant`)",
        );
        return None;
    }
    if reset == Reset::Zero
        && let (Some(v), Some(init)) = (&b.init, init)
        && *init != Init::Zero
    {
        c.err(
            v.span(),
            "`reset = \"zero\"` zeroes this buffer before every run, so this `init` would never be seen",
            "drop `init`, or write `reset = \"init\"` to restore these contents instead",
        );
        return None;
    }
    Some(reset)
}
