//! Expected outputs for verification: built-in CPU references and the `formula` reference.

use super::reference;
use crate::expr::{Arrays, Expr, Num};
use crate::host_data::{ElemType, HostData};
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

/// Element `j` of the formula's own output so far (a recurrence's `ref[j]`), in the output's kind.
fn earlier(done: &[Num], j: i64, float: bool) -> Option<Num> {
    let v = *done.get(usize::try_from(j).ok()?)?;
    Some(match (v, float) {
        (Num::Int(i), true) => Num::Float(i as f64),
        (Num::Float(f), false) => Num::Int(f as i64),
        (v, _) => v,
    })
}

/// The expected content of the verified output buffer (`len` elements of type `like`).
pub fn expected(
    verify: &VerifySpec,
    vars: &HashMap<String, Num>,
    host: &BTreeMap<String, HostData>,
    out_len: usize,
    like: ElemType,
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
        let n = dims
            .get("n")
            .map(|n| *n as usize)
            .unwrap_or(out_len)
            .min(out_len);
        return formula_values(formula, &vars, host, n, like);
    }
    let inputs: Vec<&HostData> = verify
        .inputs
        .iter()
        .map(|b| {
            host.get(b)
                .ok_or_else(|| format!("reference input `{b}` is not a buffer"))
        })
        .collect::<Result<_, _>>()?;
    reference::run(name, &inputs, &dims, like).map_err(|e| e.to_string())
}

/// The first `n` elements of a `formula` reference, evaluated with the point's `vars`.
fn formula_values(
    formula: &Expr,
    vars: &HashMap<String, Num>,
    host: &BTreeMap<String, HostData>,
    n: usize,
    like: ElemType,
) -> Result<HostData, String> {
    // Parameters and dims are the same for every element: substituted and folded once.
    let formula = formula.specialized(&|name| {
        (name != "i" && name != SELF_NAME)
            .then(|| vars.get(name).copied())
            .flatten()
    });
    let recurrence = formula.variables().iter().any(|v| v == SELF_NAME);
    // Compiled once: `i` in slot 0, the inputs (after `ref`, in a recurrence) read by number.
    let names: Vec<&str> = recurrence
        .then_some(SELF_NAME)
        .into_iter()
        .chain(host.keys().map(String::as_str))
        .collect();
    let formula = formula.compile(&["i"], &names);
    let inputs: Vec<&HostData> = host.values().collect();
    let skip = usize::from(recurrence);
    // Integers read exactly (64-bit ones too), floats widened to f64.
    let input = |a: usize, j: i64| inputs.get(a - skip)?.get_num(usize::try_from(j).ok()?);
    let at = |i: usize, slots: &mut Vec<Num>, read: Arrays| {
        slots[0] = Num::Int(i as i64);
        formula
            .eval(slots, read)
            .map_err(|e| format!("formula at i={i}: {e}"))
    };
    let slots = vec![Num::Int(0); formula.slots()];
    if recurrence {
        // Element i may read elements 0..i, so one after another.
        let (mut done, mut slots) = (Vec::with_capacity(n), slots);
        for i in 0..n {
            let read = |a: usize, j: i64| match a {
                0 => earlier(&done, j, like.is_float()),
                _ => input(a, j),
            };
            let v = at(i, &mut slots, &read)?;
            done.push(v);
        }
        return Ok(HostData::from_nums(like, &done));
    }
    // Evaluated per element over every core.
    let values: Result<Vec<Num>, String> = (0..n)
        .into_par_iter()
        .map_init(|| slots.clone(), |slots, i| at(i, slots, &input))
        .collect();
    // Converted per element by the output type's rules (`host_data::element`).
    Ok(HostData::from_nums(like, &values?))
}

#[cfg(test)]
#[path = "expected_tests.rs"]
mod tests;
