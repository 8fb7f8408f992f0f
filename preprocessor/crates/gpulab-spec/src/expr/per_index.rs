//! An expression compiled once into closures for evaluation at many values of one index variable
//! (a `formula` reference: `i` over 2²⁶ elements). Arrays are resolved to their readers once, and
//! each operator is a direct call instead of a walk with name lookups; calls and aggregates are
//! evaluated by the tree walker ([`eval`]) in the caller's environment, so their semantics are
//! the same code. Any error yields `None`: the caller evaluates that element again with
//! [`Expr::eval`] for the exact error, so results and messages are those of the tree walker.

use super::{BinOp, Division, Env, Expr, Kind, Node, Num, binary, eval};

/// Reads element `j` of an array (`None` out of range).
pub type ArrayReader<'a> = Box<dyn Fn(usize) -> Option<Num> + Send + Sync + 'a>;

type Closure<'a> = Box<dyn Fn(i64, &dyn Env) -> Option<Num> + Send + Sync + 'a>;

/// An expression compiled for one index variable; see the module documentation.
pub struct PerIndex<'a> {
    f: Closure<'a>,
}

impl PerIndex<'_> {
    /// The value at index `i`, or `None` when the evaluation fails there. `env` is the same
    /// environment [`Expr::eval`] would get at `i` (for the parts evaluated by the tree walker).
    pub fn eval(&self, i: i64, env: &dyn Env) -> Option<Num> {
        (self.f)(i, env)
    }
}

impl Expr {
    /// Compiles this expression for evaluation at many values of `index` (see [`PerIndex`]);
    /// `arrays` gives the reader of each array the expression reads (`None`: the tree walker
    /// reads it through the environment).
    pub fn per_index<'a>(
        &'a self,
        index: &'a str,
        arrays: &dyn Fn(&str) -> Option<ArrayReader<'a>>,
    ) -> PerIndex<'a> {
        PerIndex {
            f: compile(&self.root, index, arrays, self.division),
        }
    }
}

fn compile<'a>(
    node: &'a Node,
    index: &'a str,
    arrays: &dyn Fn(&str) -> Option<ArrayReader<'a>>,
    division: Division,
) -> Closure<'a> {
    let walk = move |_: i64, env: &dyn Env| eval(node, env, division).ok();
    match &node.kind {
        Kind::Lit(n) => {
            let n = *n;
            Box::new(move |_, _| Some(n))
        }
        Kind::Var(name) if &**name == index => Box::new(|i, _| Some(Num::Int(i))),
        Kind::Index(name, at) => {
            let Some(read) = arrays(name) else {
                return Box::new(walk);
            };
            let at = compile(at, index, arrays, division);
            Box::new(move |i, env| {
                let j = at(i, env)?.as_i64()?;
                read(usize::try_from(j).ok()?)
            })
        }
        Kind::Neg(a) => {
            let a = compile(a, index, arrays, division);
            Box::new(move |i, env| match a(i, env)? {
                Num::Int(x) => x.checked_neg().map(Num::Int),
                Num::Float(x) => Some(Num::Float(-x)),
            })
        }
        Kind::Bin(op @ (BinOp::And | BinOp::Or), a, b) => {
            let (a, b) = (
                compile(a, index, arrays, division),
                compile(b, index, arrays, division),
            );
            let and = *op == BinOp::And;
            Box::new(move |i, env| {
                let x = a(i, env)?.truthy();
                let r = if and {
                    x && b(i, env)?.truthy()
                } else {
                    x || b(i, env)?.truthy()
                };
                Some(Num::Int(i64::from(r)))
            })
        }
        Kind::Bin(op, a, b) => {
            let (a, b, op) = (
                compile(a, index, arrays, division),
                compile(b, index, arrays, division),
                *op,
            );
            Box::new(move |i, env| binary(op, a(i, env)?, b(i, env)?, division).ok())
        }
        // `!x`, calls, aggregates and variables other than the index: the tree walker's code.
        Kind::Not(_) | Kind::Var(_) | Kind::Call(..) | Kind::Agg(_) => Box::new(walk),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    use crate::expr::test_env::At;

    /// The arrays `a[j] = (j * 7) % 11 - 3` (ints) and `b[j] = j / 4` (floats), 0 ≤ j < 64.
    fn read<'a>(name: &str) -> Option<ArrayReader<'a>> {
        match name {
            "a" => Some(Box::new(|j| {
                (j < 64).then(|| Num::Int((j as i64 * 7) % 11 - 3))
            })),
            "b" => Some(Box::new(|j| (j < 64).then(|| Num::Float(j as f64 / 4.0)))),
            _ => None,
        }
    }

    #[test]
    fn agrees_with_the_tree_walker_value_for_value_and_fails_where_it_fails() {
        let vars = HashMap::from([("N".to_string(), Num::Int(5))]);
        for src in [
            "a[(i/N)*N + N - 1 - i%N] * (i%N + 1)",
            "((b[i] * 2 + a[i]) * b[i] - 1.5) / (a[i] + 3)",
            "-a[i] + !(i > 3) + (i > 2 && a[i] > 0) + (i < 1 || b[i] > 3)",
            "if(i > 0, a[i - 1], 0) + max(a[i], b[i], N) + sum_of(k, 0, i % 4, a[k])",
            "a[i + 60]",
            "N / (i - 7) + i^2 - 2^i",
            "c[i] + M",
        ] {
            let e = Expr::parse(src).unwrap();
            let compiled = e.per_index("i", &read);
            for i in 0..70 {
                let arrays =
                    |name: &str, j: i64| read(name).and_then(|r| r(usize::try_from(j).ok()?));
                let env = At {
                    vars: &vars,
                    i,
                    read: &arrays,
                };
                assert_eq!(
                    compiled.eval(i, &env),
                    e.eval(&env).ok(),
                    "{src} at i = {i}"
                );
            }
        }
    }
}
