//! An expression compiled once into a tree of closures, for evaluations that run millions of times
//! (a `formula` reference: every output element, and every term of its aggregates). Variables
//! are resolved to slots and arrays to numbers before the first evaluation, so that evaluating
//! looks nothing up by name. It computes what [`Expr::eval`] computes, by the same arithmetic and
//! loops (`binary`, `call`, `aggregate`), with the same errors: the tests evaluate both ways.

use super::{
    Aggregate, BinOp, CallError, Division, Expr, ExprError, Kind, Node, Num, aggregate, binary,
    call, range_bound,
};

/// Element `j` of array number `a` (in the order given to [`Expr::compile`]), or `None` out of range.
pub type Arrays<'a> = &'a dyn Fn(usize, i64) -> Option<Num>;

/// A compiled node. Its error is boxed so that a result fits in two registers.
type Code = Box<dyn Fn(&mut [Num], Arrays) -> Result<Num, Box<ExprError>> + Send + Sync>;

/// A compiled expression: see [`Expr::compile`].
pub struct Compiled {
    code: Code,
    slots: usize,
}

impl Compiled {
    /// How many slots an evaluation needs: the variables given to [`Expr::compile`], then one per
    /// level of nested aggregates.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Evaluates with `slots` (at least [`Compiled::slots`] long) holding the variables' values
    /// first; the rest is scratch for the aggregates' indices.
    pub fn eval(&self, slots: &mut [Num], arrays: Arrays) -> Result<Num, ExprError> {
        (self.code)(slots, arrays).map_err(|e| *e)
    }
}

impl Expr {
    /// Compiles this expression: the variables `vars` are read from slots in this order, the arrays
    /// `arrays` through the reader given to [`Compiled::eval`]; any other name fails where it is
    /// evaluated, as in [`Expr::eval`] with an environment that lacks it.
    pub fn compile(&self, vars: &[&str], arrays: &[&str]) -> Compiled {
        let mut c = Compiler {
            scope: vars.iter().map(|v| v.to_string()).collect(),
            arrays: arrays.iter().map(|a| a.to_string()).collect(),
            deepest: vars.len(),
            division: self.division,
        };
        let code = c.code(&self.root);
        Compiled {
            code,
            slots: c.deepest,
        }
    }
}

struct Compiler {
    /// The name of each slot: the given variables, then the enclosing aggregates' indices.
    scope: Vec<String>,
    arrays: Vec<String>,
    deepest: usize,
    division: Division,
}

fn error(node: &Node) -> impl Fn(String) -> Box<ExprError> + Send + Sync + use<> {
    let (off, len) = (node.off, node.len);
    move |m| Box::new(ExprError::new(m, off, len))
}

impl Compiler {
    fn code(&mut self, node: &Node) -> Code {
        let (err, division) = (error(node), self.division);
        match &node.kind {
            Kind::Lit(n) => {
                let n = *n;
                Box::new(move |_, _| Ok(n))
            }
            Kind::Var(name) => match self.scope.iter().rposition(|v| **v == **name) {
                Some(slot) => Box::new(move |s, _| Ok(s[slot])),
                None => {
                    let message = format!("unknown variable `{name}`");
                    Box::new(move |_, _| Err(err(message.clone())))
                }
            },
            Kind::Index(name, index) => {
                let (at, array) = (error(index), self.arrays.iter().position(|a| **a == **name));
                let (index, name) = (self.code(index), name.clone());
                Box::new(move |s, read| {
                    let iv = index(s, read)?;
                    let i = iv
                        .as_i64()
                        .ok_or_else(|| at(format!("index must be an integer, got {iv}")))?;
                    array.and_then(|a| read(a, i)).ok_or_else(|| {
                        err(format!(
                            "`{name}[{i}]`: unknown array or index out of range"
                        ))
                    })
                })
            }
            Kind::Neg(a) => {
                let a = self.code(a);
                Box::new(move |s, r| match a(s, r)? {
                    Num::Int(i) => i
                        .checked_neg()
                        .map(Num::Int)
                        .ok_or_else(|| err("integer overflow".into())),
                    Num::Float(f) => Ok(Num::Float(-f)),
                })
            }
            Kind::Not(a) => {
                let a = self.code(a);
                Box::new(move |s, r| Ok(Num::from_bool(!a(s, r)?.truthy())))
            }
            Kind::Bin(op, a, b) => {
                let (op, a, b) = (*op, self.code(a), self.code(b));
                match op {
                    BinOp::And => Box::new(move |s, r| {
                        Ok(Num::from_bool(a(s, r)?.truthy() && b(s, r)?.truthy()))
                    }),
                    BinOp::Or => Box::new(move |s, r| {
                        Ok(Num::from_bool(a(s, r)?.truthy() || b(s, r)?.truthy()))
                    }),
                    _ => Box::new(move |s, r| {
                        let (x, y) = (a(s, r)?, b(s, r)?);
                        binary(op, x, y, division).map_err(|m| err(m.into()))
                    }),
                }
            }
            Kind::Call(func, args) => {
                let (func, args) = (*func, self.codes(args));
                Box::new(move |s, r| {
                    call(func, args.len(), &mut |k| args[k](s, r).map_err(|e| *e)).map_err(|e| {
                        match e {
                            CallError::Arg(e) => Box::new(e),
                            CallError::Msg(m) => err(m.into()),
                        }
                    })
                })
            }
            Kind::Agg(agg) => self.aggregate(agg, node),
        }
    }

    /// An aggregate: its index lives in the next slot while its body and predicate run.
    fn aggregate(&mut self, agg: &Aggregate, node: &Node) -> Code {
        let (lo, hi) = (self.code(&agg.lo), self.code(&agg.hi));
        let spans = [&agg.lo, &agg.hi, node].map(|n| (n.off, n.len));
        let slot = self.scope.len();
        self.scope.push(agg.var.to_string());
        self.deepest = self.deepest.max(self.scope.len());
        let body = agg.body.as_ref().map(|b| self.code(b));
        let pred = agg.pred.as_ref().map(|p| self.code(p));
        self.scope.pop();
        let (op, division) = (agg.op, self.division);
        Box::new(move |s, r| {
            let lo = range_bound(lo(s, r)?, spans[0])?;
            let hi = range_bound(hi(s, r)?, spans[1])?;
            let mut visit = |k: i64| {
                s[slot] = Num::Int(k);
                if let Some(p) = &pred
                    && !p(s, r)?.truthy()
                {
                    return Ok(None);
                }
                match &body {
                    Some(b) => b(s, r).map(Some),
                    None => Ok(Some(Num::Int(1))),
                }
            };
            aggregate(op, (lo, hi), spans[2], division, &mut visit)
        })
    }

    fn codes(&mut self, nodes: &[Node]) -> Vec<Code> {
        nodes.iter().map(|n| self.code(n)).collect()
    }
}
