//! Specialising an expression to the values of some of its variables: each use is replaced by its
//! value and every part that then depends on nothing is folded to a literal, so that an expression
//! evaluated once per element (a `formula` reference over 2²⁶ elements) looks up only what varies
//! from one element to the next. Evaluation results and errors are unchanged: a part whose folding
//! fails is kept as it was, and fails (with its place) when evaluated.

use super::{Division, Expr, Kind, NoVars, Node, Num, eval};

impl Expr {
    /// This expression with every free use of a variable that `known` gives a value replaced by
    /// that value (an aggregate's index variable is never replaced inside its aggregate), and its
    /// constant parts folded.
    pub fn specialized(&self, known: &dyn Fn(&str) -> Option<Num>) -> Expr {
        let mut bound = Vec::new();
        Expr {
            source: self.source.clone(),
            root: fold(&self.root, known, &mut bound, self.division),
            vars: self.vars.clone(),
            division: self.division,
        }
    }
}

fn fold(
    node: &Node,
    known: &dyn Fn(&str) -> Option<Num>,
    bound: &mut Vec<Box<str>>,
    division: Division,
) -> Node {
    let f = |n: &Node, bound: &mut Vec<Box<str>>| Box::new(fold(n, known, bound, division));
    let kind = match &node.kind {
        Kind::Lit(_) => return node.clone(),
        Kind::Var(name) => match known(name) {
            Some(v) if !bound.contains(name) => Kind::Lit(v),
            _ => return node.clone(),
        },
        Kind::Index(name, index) => Kind::Index(name.clone(), f(index, bound)),
        Kind::Neg(a) => Kind::Neg(f(a, bound)),
        Kind::Not(a) => Kind::Not(f(a, bound)),
        Kind::Bin(op, a, b) => Kind::Bin(*op, f(a, bound), f(b, bound)),
        Kind::Call(func, args) => Kind::Call(*func, args.iter().map(|a| *f(a, bound)).collect()),
        Kind::Agg(agg) => {
            let mut agg = agg.clone();
            agg.lo = *f(&agg.lo, bound);
            agg.hi = *f(&agg.hi, bound);
            bound.push(agg.var.clone());
            agg.body = agg.body.as_ref().map(|b| *f(b, bound));
            agg.pred = agg.pred.as_ref().map(|p| *f(p, bound));
            bound.pop();
            Kind::Agg(agg)
        }
    };
    let folded = Node {
        kind,
        ..node.clone()
    };
    if children_are_literals(&folded)
        && let Ok(v) = eval(&folded, &NoVars, division)
    {
        return Node {
            kind: Kind::Lit(v),
            ..folded
        };
    }
    folded
}

/// An operator or call whose operands are all literals (an aggregate or an array read never is).
fn children_are_literals(node: &Node) -> bool {
    let lit = |n: &Node| matches!(n.kind, Kind::Lit(_));
    match &node.kind {
        Kind::Neg(a) | Kind::Not(a) => lit(a),
        Kind::Bin(_, a, b) => lit(a) && lit(b),
        Kind::Call(_, args) => args.iter().all(lit),
        Kind::Lit(_) | Kind::Var(_) | Kind::Index(..) | Kind::Agg(_) => false,
    }
}

#[cfg(test)]
#[path = "specialize_tests.rs"]
mod tests;
