//! Expected outputs for verification: built-in CPU references and the `formula` reference,
//! evaluated on the host inputs of a point.

use super::reference;
use crate::expr::{Env, Num};
use crate::host_data::HostData;
use crate::spec::validate::FORMULA_SELF as SELF_NAME;
use crate::spec::{Reference, VerifySpec};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// Evaluates the verify dims at a point.
pub fn dims(
    verify: &VerifySpec,
    vars: &HashMap<String, Num>,
) -> Result<BTreeMap<String, i64>, String> {
    verify
        .dims
        .iter()
        .map(|(name, e)| {
            let v = e.eval(vars).map_err(|x| format!("dim {name}: {x}"))?;
            v.as_i64()
                .map(|i| (name.clone(), i))
                .ok_or_else(|| format!("dim {name} = {v} is not an integer"))
        })
        .collect()
}

/// Variables, the element index and input buffers, for `formula`.
struct FormulaEnv<'a> {
    vars: &'a HashMap<String, Num>,
    inputs: &'a BTreeMap<String, &'a HostData>,
    i: i64,
    /// The elements computed so far, when the formula reads `ref[j]` (j < i).
    done: Option<(&'a [Num], bool)>,
}

impl Env for FormulaEnv<'_> {
    fn var(&self, name: &str) -> Option<Num> {
        if name == "i" {
            return Some(Num::Int(self.i));
        }
        self.vars.get(name).copied()
    }
    fn index(&self, name: &str, i: i64) -> Option<Num> {
        if let (SELF_NAME, Some((done, float))) = (name, self.done) {
            let v = *done.get(usize::try_from(i).ok()?)?;
            return Some(match (v, float) {
                (Num::Int(i), true) => Num::Float(i as f64),
                (Num::Float(f), false) => Num::Int(f as i64),
                (v, _) => v,
            });
        }
        // Integers read exactly (64-bit ones too), floats widened to f64.
        self.inputs.get(name)?.get_num(usize::try_from(i).ok()?)
    }
}

/// The expected content of the verified output buffer (`len` elements of type `like`).
pub fn expected(
    verify: &VerifySpec,
    vars: &HashMap<String, Num>,
    host: &BTreeMap<String, HostData>,
    out_len: usize,
    like: crate::host_data::ElemType,
) -> Result<HostData, String> {
    let Reference::Builtin(name) = &verify.reference else {
        return Err("a variant reference is resolved by the caller".into());
    };
    let mut vars = vars.clone();
    let dims = dims(verify, &vars)?;
    for (k, v) in &dims {
        vars.insert(k.clone(), Num::Int(*v));
    }
    if name == "formula" {
        let formula = verify
            .formula
            .as_ref()
            .ok_or("reference `formula` has no formula")?;
        // Parameters and dims are the same for every element: substituted and folded once, so
        // the per-element evaluation looks up only `i` and the inputs.
        let formula = &formula.specialized(&|name| {
            (name != "i" && name != SELF_NAME)
                .then(|| vars.get(name).copied())
                .flatten()
        });
        let inputs: BTreeMap<String, &HostData> =
            host.iter().map(|(k, v)| (k.clone(), v)).collect();
        let n = dims
            .get("n")
            .map(|n| *n as usize)
            .unwrap_or(out_len)
            .min(out_len);
        if formula.variables().iter().any(|v| v == SELF_NAME) {
            // A recurrence: element i may read elements 0..i, so one after another.
            let mut done: Vec<Num> = Vec::with_capacity(n);
            for i in 0..n {
                let env = FormulaEnv {
                    vars: &vars,
                    inputs: &inputs,
                    i: i as i64,
                    done: Some((&done, like.is_float())),
                };
                let v = formula
                    .eval(&env)
                    .map_err(|e| format!("formula at i={i}: {e}"))?;
                done.push(v);
            }
            return Ok(HostData::from_nums(like, &done));
        }
        // Evaluated per element over every core, by the one evaluator.
        let values: Result<Vec<Num>, String> = (0..n)
            .into_par_iter()
            .map(|i| {
                let env = FormulaEnv {
                    vars: &vars,
                    inputs: &inputs,
                    i: i as i64,
                    done: None,
                };
                formula
                    .eval(&env)
                    .map_err(|e| format!("formula at i={i}: {e}"))
            })
            .collect();
        // Converted per element by the output type's rules (integers exactly, wrapping; floats
        // rounded to nearest): see `host_data::element`.
        return Ok(HostData::from_nums(like, &values?));
    }
    let inputs: Vec<&HostData> = verify
        .inputs
        .iter()
        .map(|b| {
            host.get(b)
                .ok_or_else(|| format!("reference input `{b}` is not a buffer"))
        })
        .collect::<Result<_, _>>()?;
    reference::run(name, &inputs, &dims).map_err(|e| e.to_string())
}

/// The first `n` elements of `data` (references of reductions produce fewer than the buffer).
pub fn prefix(data: &HostData, n: usize) -> HostData {
    data.prefix(n)
}

#[cfg(test)]
#[path = "expected_tests.rs"]
mod tests;
