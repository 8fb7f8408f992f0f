//! An environment for the expression language's tests: variables from a map, the index `i`, and
//! arrays read through a function.

use super::{Env, Num};
use std::collections::HashMap;

pub(super) struct At<'a> {
    pub vars: &'a HashMap<String, Num>,
    pub i: i64,
    pub read: &'a dyn Fn(&str, i64) -> Option<Num>,
}

impl Env for At<'_> {
    fn var(&self, name: &str) -> Option<Num> {
        if name == "i" {
            Some(Num::Int(self.i))
        } else {
            self.vars.get(name).copied()
        }
    }
    fn index(&self, name: &str, j: i64) -> Option<Num> {
        (self.read)(name, j)
    }
}
