//! Expression language: parse once, evaluate many times with variables (see DESIGN.md).
//!
//! Grammar, loosest binding first:
//!
//! ```text
//! expr    := or
//! or      := and ("||" and)*
//! and     := cmp ("&&" cmp)*
//! cmp     := sum (("<" | "<=" | ">" | ">=" | "==" | "!=") sum)?      (no chaining)
//! sum     := product (("+" | "-") product)*
//! product := unary (("*" | "/" | "%") unary)*
//! unary   := ("-" | "+" | "!") unary | power
//! power   := primary ("^" unary)?                                     (right-associative)
//! primary := number | name | name "[" expr "]" | func "(" expr ("," expr)* ")" | "(" expr ")"
//! name    := [A-Za-z_][A-Za-z0-9_]* ("." [A-Za-z_][A-Za-z0-9_]*)*
//! ```
//!
//! `^` binds tighter than unary minus, so `-2^2` is `-4`. Booleans are `Int(1)` / `Int(0)`; `&&` and `||`
//! short-circuit. Integer arithmetic is checked: overflow and division by zero are errors, never panics.
//!
//! What `/` means between two integers is chosen by the caller, once per place that takes an
//! expression ([`Division`]): C's truncating division for sizes, launch geometry, defines and kernel
//! arguments; real division for metric formulas and claims. `div(a, b)` truncates and
//! `ceil_div(a, b)` rounds up in both.

mod compile;
mod specialize;
#[cfg(test)]
mod test_env;

pub use compile::{Arrays, Compiled};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::BuildHasher;
use std::str::FromStr;

/// Deepest expression tree (and parser recursion) accepted, so that evaluation cannot overflow the stack.
const MAX_DEPTH: usize = 128;

/// A number: every value of the language is one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    /// The value as a float (integers convert, possibly rounding above 2^53).
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// The value as an integer: `Int` as is, `Float` only when finite, integral and in range.
    pub fn as_i64(self) -> Option<i64> {
        match self {
            Num::Int(i) => Some(i),
            Num::Float(f) => {
                // 2^63 is exactly representable; every integral float in [-2^63, 2^63) fits.
                let in_range =
                    (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f);
                (in_range && f.fract() == 0.0).then_some(f as i64)
            }
        }
    }

    /// True unless the value is zero (the language's notion of a boolean).
    pub(crate) fn truthy(self) -> bool {
        match self {
            Num::Int(i) => i != 0,
            Num::Float(f) => f != 0.0,
        }
    }

    fn from_bool(b: bool) -> Num {
        Num::Int(i64::from(b))
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Float(x) => write!(f, "{x}"),
        }
    }
}

impl From<i64> for Num {
    fn from(i: i64) -> Self {
        Num::Int(i)
    }
}

impl From<f64> for Num {
    fn from(f: f64) -> Self {
        Num::Float(f)
    }
}

/// A parse or evaluation error, located by a byte range of the expression's source.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExprError {
    pub message: String,
    /// Byte offset of the offending part in the source.
    pub offset: usize,
    /// Its length in bytes (may be 0, e.g. for "unexpected end of expression").
    pub len: usize,
}

impl ExprError {
    /// An error at `offset..offset + len`.
    pub fn new(message: impl Into<String>, offset: usize, len: usize) -> Self {
        ExprError {
            message: message.into(),
            offset,
            len,
        }
    }

    /// The same error with its offset moved by `base`: for an expression embedded in a larger text.
    pub(crate) fn shifted(mut self, base: usize) -> Self {
        self.offset = self.offset.saturating_add(base);
        self
    }

    /// The byte range of the offending part.
    pub fn span(&self) -> std::ops::Range<usize> {
        self.offset..self.offset.saturating_add(self.len)
    }
}

/// Variable values for evaluation.
pub trait Env {
    /// The value of a (possibly dotted) variable, or `None` when unknown.
    fn var(&self, name: &str) -> Option<Num>;
    /// Element `i` of the array `name` (for `name[i]`), or `None` when unknown or out of range.
    fn index(&self, _name: &str, _i: i64) -> Option<Num> {
        None
    }
}

impl<S: BuildHasher> Env for HashMap<String, Num, S> {
    fn var(&self, name: &str) -> Option<Num> {
        self.get(name).copied()
    }
}

impl Env for BTreeMap<String, Num> {
    fn var(&self, name: &str) -> Option<Num> {
        self.get(name).copied()
    }
}

impl<T: Env + ?Sized> Env for &T {
    fn var(&self, name: &str) -> Option<Num> {
        (**self).var(name)
    }
    fn index(&self, name: &str, i: i64) -> Option<Num> {
        (**self).index(name, i)
    }
}

/// An environment with no variables (for constant expressions).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NoVars;

impl Env for NoVars {
    fn var(&self, _name: &str) -> Option<Num> {
        None
    }
}

/// What `/` means when both operands are integers (with a float operand it is always real).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Division {
    /// C's integer division, truncating toward zero (`7 / 2` is `3`): buffer lengths, grids, blocks,
    /// shared bytes, loops, passes, defines, kernel arguments and the `formula` reference, which live
    /// beside CUDA C code and must be integers.
    #[default]
    Integer,
    /// Real division (`7 / 2` is `3.5`): metric formulas and claims, where `2*N^3 / (2*N^3 + N^2)`
    /// means the quotient. `div(a, b)` truncates explicitly.
    Real,
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    source: String,
    root: Node,
    vars: Vec<String>,
    division: Division,
}

/// An integer division that dropped a remainder while evaluating (see [`Expr::truncations`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Truncation {
    /// The division's text, e.g. `N^3 / BS` or `div(N, 3)`.
    pub text: String,
    pub numerator: i64,
    pub denominator: i64,
}

impl fmt::Display for Truncation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = (self.numerator, self.denominator);
        write!(
            f,
            "`{}` is {a} / {b} = {}, truncated to {}",
            self.text,
            a as f64 / b as f64,
            a / b
        )
    }
}

impl Expr {
    /// Parses a whole expression whose integer `/` truncates ([`Division::Integer`]); error offsets
    /// are byte offsets into `src`.
    pub fn parse(src: &str) -> Result<Expr, ExprError> {
        Expr::parse_with(src, Division::Integer)
    }

    /// Parses a whole expression whose `/` is real division ([`Division::Real`]): metric formulas.
    pub(crate) fn parse_real(src: &str) -> Result<Expr, ExprError> {
        Expr::parse_with(src, Division::Real)
    }

    /// Parses a whole expression with the given meaning of `/`.
    pub(crate) fn parse_with(src: &str, division: Division) -> Result<Expr, ExprError> {
        let mut p = Parser::new(src);
        let root = p.expr()?;
        if p.tok.kind != Tok::Eof {
            return Err(p.unexpected("an operator or the end of the expression"));
        }
        Ok(Expr {
            source: src.to_string(),
            root,
            vars: p.vars,
            division,
        })
    }

    /// What `/` means in this expression.
    pub fn division(&self) -> Division {
        self.division
    }

    /// Parses the longest prefix of `src` that is an arithmetic operand: comparison and logical operators
    /// are allowed only inside parentheses, brackets and call arguments. Returns the expression and the
    /// number of bytes it took (its source has trailing white space trimmed). Used by `claims`, whose
    /// operands are followed by an operator or keyword the language does not know.
    /// `/` is real division in them (claims compare quantities).
    pub(crate) fn parse_operand(src: &str) -> Result<(Expr, usize), ExprError> {
        let mut p = Parser::new(src);
        let root = p.sum()?;
        let end = src[..p.tok.start].trim_end().len();
        Ok((
            Expr {
                source: src[..end].to_string(),
                root,
                vars: p.vars,
                division: Division::Real,
            },
            end,
        ))
    }

    /// The text the expression was parsed from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Distinct variable names, in order of first use; `a[i]` counts `a` (and the variables of `i`).
    pub fn variables(&self) -> Vec<String> {
        self.vars.clone()
    }

    /// Byte range (in [`Expr::source`]) of the first use of variable `name`, if used.
    pub(crate) fn variable_span(&self, name: &str) -> Option<std::ops::Range<usize>> {
        find_var(&self.root, name)
    }

    /// Evaluates the expression. Does not allocate unless it fails.
    pub fn eval(&self, env: &dyn Env) -> Result<Num, ExprError> {
        eval(&self.root, env, self.division)
    }

    /// The integer divisions (`/` between integers under [`Division::Integer`], and `div`) that drop
    /// a remainder when evaluated with `env`, in source order. Parts that fail to evaluate are skipped.
    pub fn truncations(&self, env: &dyn Env) -> Vec<Truncation> {
        let mut out = Vec::new();
        truncations(&self.root, env, self.division, &self.source, &mut out);
        out
    }

    #[cfg(test)]
    /// Evaluates to a float.
    pub(crate) fn eval_f64(&self, env: &dyn Env) -> Result<f64, ExprError> {
        self.eval(env).map(Num::as_f64)
    }
}

impl FromStr for Expr {
    type Err = ExprError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Expr::parse(s)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

// ---------------------------------------------------------------------------------------------------------
// AST

#[derive(Clone, Debug, PartialEq)]
struct Node {
    kind: Kind,
    off: usize,
    len: usize,
    depth: usize,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Lit(Num),
    Var(Box<str>),
    Index(Box<str>, Box<Node>),
    Neg(Box<Node>),
    Not(Box<Node>),
    Bin(BinOp, Box<Node>, Box<Node>),
    Call(Func, Vec<Node>),
    /// `sum_of(k, lo, hi, body[, where])` and the like: `body` over `k = lo, lo+1, …, hi-1`.
    Agg(Box<Aggregate>),
}

/// An aggregate over an index range, with an optional predicate.
#[derive(Clone, Debug, PartialEq)]
struct Aggregate {
    op: AggOp,
    /// The bound index variable (`k`), visible in `body` and `pred` only.
    var: Box<str>,
    lo: Node,
    hi: Node,
    /// `None` for `count_of` (each index that passes counts 1).
    body: Option<Node>,
    pred: Option<Node>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AggOp {
    Sum,
    Count,
    Min,
    Max,
}

/// Aggregate functions: `name(k, lo, hi, body[, where])`; `count_of(k, lo, hi, where)`.
const AGGREGATES: [(&str, AggOp); 4] = [
    ("sum_of", AggOp::Sum),
    ("count_of", AggOp::Count),
    ("min_of", AggOp::Min),
    ("max_of", AggOp::Max),
];

/// The most indices one aggregate may visit in one evaluation (a guard against runaway nesting).
const MAX_AGGREGATE_LEN: i64 = 1 << 26;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Func {
    CeilDiv,
    Div,
    Min,
    Max,
    Abs,
    Floor,
    Ceil,
    Sqrt,
    Log2,
    Pow2,
    Round,
    If,
}

const FUNCS: [(&str, Func); 12] = [
    ("ceil_div", Func::CeilDiv),
    ("div", Func::Div),
    ("min", Func::Min),
    ("max", Func::Max),
    ("abs", Func::Abs),
    ("floor", Func::Floor),
    ("ceil", Func::Ceil),
    ("sqrt", Func::Sqrt),
    ("log2", Func::Log2),
    ("pow2", Func::Pow2),
    ("round", Func::Round),
    ("if", Func::If),
];

impl Func {
    /// (minimum, maximum) argument count.
    fn arity(self) -> (usize, usize) {
        match self {
            Func::CeilDiv | Func::Div => (2, 2),
            Func::Min | Func::Max => (1, usize::MAX),
            Func::If => (3, 3),
            _ => (1, 1),
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Lexer

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(Num),
    Ident,
    LParen,
    RParen,
    LBrack,
    RBrack,
    Comma,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    Lt,
    Le,
    Gt,
    Ge,
    EqEq,
    Ne,
    AndAnd,
    OrOr,
    Bang,
    Eof,
    /// A lexical error; reported only if the parser needs this token.
    Bad(String),
}

#[derive(Clone, Debug)]
struct Token {
    kind: Tok,
    start: usize,
    end: usize,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn lex(src: &str, pos: usize) -> Token {
    let b = src.as_bytes();
    let mut i = pos;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let start = i;
    let tok = |kind, end| Token { kind, start, end };
    let Some(&c) = b.get(i) else {
        return tok(Tok::Eof, i);
    };
    let next = b.get(i + 1).copied();
    let two = |kind| Token {
        kind,
        start,
        end: start + 2,
    };
    match c {
        b'0'..=b'9' | b'.' if c != b'.' || next.is_some_and(|n| n.is_ascii_digit()) => {
            lex_number(src, start)
        }
        c if is_ident_start(c) => {
            let mut j = i;
            loop {
                while j < b.len() && is_ident_char(b[j]) {
                    j += 1;
                }
                if j < b.len() && b[j] == b'.' {
                    if b.get(j + 1).copied().is_some_and(is_ident_start) {
                        j += 1;
                        continue;
                    }
                    return Token {
                        kind: Tok::Bad("expected a name after `.`".into()),
                        start: j,
                        end: j + 1,
                    };
                }
                break;
            }
            tok(Tok::Ident, j)
        }
        b'(' => tok(Tok::LParen, i + 1),
        b')' => tok(Tok::RParen, i + 1),
        b'[' => tok(Tok::LBrack, i + 1),
        b']' => tok(Tok::RBrack, i + 1),
        b',' => tok(Tok::Comma, i + 1),
        b'+' => tok(Tok::Plus, i + 1),
        b'-' => tok(Tok::Minus, i + 1),
        b'*' if next == Some(b'*') => two(Tok::Bad("use `^` for powers".into())),
        b'*' => tok(Tok::Star, i + 1),
        b'/' => tok(Tok::Slash, i + 1),
        b'%' => tok(Tok::Percent, i + 1),
        b'^' => tok(Tok::Caret, i + 1),
        b'<' if next == Some(b'=') => two(Tok::Le),
        b'<' => tok(Tok::Lt, i + 1),
        b'>' if next == Some(b'=') => two(Tok::Ge),
        b'>' => tok(Tok::Gt, i + 1),
        b'=' if next == Some(b'=') => two(Tok::EqEq),
        b'=' => tok(
            Tok::Bad("unexpected `=`; use `==` to compare".into()),
            i + 1,
        ),
        b'!' if next == Some(b'=') => two(Tok::Ne),
        b'!' => tok(Tok::Bang, i + 1),
        b'&' if next == Some(b'&') => two(Tok::AndAnd),
        b'&' => tok(Tok::Bad("unexpected `&`; use `&&`".into()), i + 1),
        b'|' if next == Some(b'|') => two(Tok::OrOr),
        b'|' => tok(Tok::Bad("unexpected `|`; use `||`".into()), i + 1),
        _ => {
            let ch = src[i..].chars().next().unwrap_or('?');
            tok(
                Tok::Bad(format!("unexpected character `{ch}`")),
                i + ch.len_utf8(),
            )
        }
    }
}

fn lex_number(src: &str, start: usize) -> Token {
    let b = src.as_bytes();
    let digits = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let mut j = digits(start);
    let mut float = false;
    if j < b.len() && b[j] == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
        j = digits(j + 1);
        float = true;
    }
    if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
        let mut k = j + 1;
        if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
            k += 1;
        }
        if b.get(k).is_some_and(u8::is_ascii_digit) {
            j = digits(k);
            float = true;
        }
    }
    // A number glued to a name or another dot (`2x`, `1.5.2`, `3.`) is a typo, not two tokens.
    let mut end = j;
    while end < b.len() && (is_ident_char(b[end]) || b[end] == b'.') {
        end += 1;
    }
    let kind = if end > j {
        Tok::Bad(format!("malformed number `{}`", &src[start..end]))
    } else if float {
        match src[start..j].parse::<f64>() {
            Ok(f) if f.is_finite() => Tok::Num(Num::Float(f)),
            _ => Tok::Bad("number out of range".into()),
        }
    } else {
        match src[start..j].parse::<i64>() {
            Ok(i) => Tok::Num(Num::Int(i)),
            Err(_) => Tok::Bad("integer literal too large".into()),
        }
    };
    Token { kind, start, end }
}

// ---------------------------------------------------------------------------------------------------------
// Parser

struct Parser<'a> {
    src: &'a str,
    tok: Token,
    nesting: usize,
    vars: Vec<String>,
    /// Index variables bound by the aggregates being parsed (not free variables).
    bound: Vec<String>,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        Parser {
            src,
            tok: lex(src, 0),
            nesting: 0,
            vars: Vec::new(),
            bound: Vec::new(),
        }
    }

    fn bump(&mut self) -> Token {
        let next = lex(self.src, self.tok.end);
        std::mem::replace(&mut self.tok, next)
    }

    fn unexpected(&self, expected: &str) -> ExprError {
        let t = &self.tok;
        match &t.kind {
            Tok::Bad(msg) => ExprError::new(msg.clone(), t.start, t.end - t.start),
            Tok::Eof => ExprError::new(
                format!("unexpected end of expression; expected {expected}"),
                t.start,
                0,
            ),
            _ => ExprError::new(
                format!(
                    "unexpected `{}`; expected {expected}",
                    &self.src[t.start..t.end]
                ),
                t.start,
                t.end - t.start,
            ),
        }
    }

    fn node(&self, kind: Kind, off: usize, end: usize) -> Result<Node, ExprError> {
        let depth = 1 + match &kind {
            Kind::Lit(_) | Kind::Var(_) => 0,
            Kind::Index(_, a) | Kind::Neg(a) | Kind::Not(a) => a.depth,
            Kind::Bin(_, a, b) => a.depth.max(b.depth),
            Kind::Call(_, args) => args.iter().map(|a| a.depth).max().unwrap_or(0),
            Kind::Agg(a) => a.children().map(|n| n.depth).max().unwrap_or(0),
        };
        if depth > MAX_DEPTH {
            return Err(ExprError::new(
                "expression is nested too deeply",
                off,
                end - off,
            ));
        }
        Ok(Node {
            kind,
            off,
            len: end - off,
            depth,
        })
    }

    fn binary(&self, op: BinOp, lhs: Node, rhs: Node) -> Result<Node, ExprError> {
        let (off, end) = (lhs.off, rhs.off + rhs.len);
        self.node(Kind::Bin(op, Box::new(lhs), Box::new(rhs)), off, end)
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return Err(ExprError::new(
                "expression is nested too deeply",
                self.tok.start,
                0,
            ));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Node, ExprError> {
        self.enter()?;
        let mut lhs = self.and()?;
        while self.tok.kind == Tok::OrOr {
            self.bump();
            let rhs = self.and()?;
            lhs = self.binary(BinOp::Or, lhs, rhs)?;
        }
        self.nesting -= 1;
        Ok(lhs)
    }

    fn and(&mut self) -> Result<Node, ExprError> {
        let mut lhs = self.cmp()?;
        while self.tok.kind == Tok::AndAnd {
            self.bump();
            let rhs = self.cmp()?;
            lhs = self.binary(BinOp::And, lhs, rhs)?;
        }
        Ok(lhs)
    }

    fn cmp_op(kind: &Tok) -> Option<BinOp> {
        Some(match kind {
            Tok::Lt => BinOp::Lt,
            Tok::Le => BinOp::Le,
            Tok::Gt => BinOp::Gt,
            Tok::Ge => BinOp::Ge,
            Tok::EqEq => BinOp::Eq,
            Tok::Ne => BinOp::Ne,
            _ => return None,
        })
    }

    fn cmp(&mut self) -> Result<Node, ExprError> {
        let lhs = self.sum()?;
        let Some(op) = Self::cmp_op(&self.tok.kind) else {
            return Ok(lhs);
        };
        self.bump();
        let rhs = self.sum()?;
        if Self::cmp_op(&self.tok.kind).is_some() {
            let t = &self.tok;
            return Err(ExprError::new(
                "comparisons cannot be chained; use `&&` (e.g. `a < b && b < c`)",
                t.start,
                t.end - t.start,
            ));
        }
        self.binary(op, lhs, rhs)
    }

    fn sum(&mut self) -> Result<Node, ExprError> {
        let mut lhs = self.product()?;
        loop {
            let op = match self.tok.kind {
                Tok::Plus => BinOp::Add,
                Tok::Minus => BinOp::Sub,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.product()?;
            lhs = self.binary(op, lhs, rhs)?;
        }
    }

    fn product(&mut self) -> Result<Node, ExprError> {
        let mut lhs = self.unary()?;
        loop {
            let op = match self.tok.kind {
                Tok::Star => BinOp::Mul,
                Tok::Slash => BinOp::Div,
                Tok::Percent => BinOp::Rem,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.unary()?;
            lhs = self.binary(op, lhs, rhs)?;
        }
    }

    fn unary(&mut self) -> Result<Node, ExprError> {
        let kind = self.tok.kind.clone();
        if !matches!(kind, Tok::Minus | Tok::Plus | Tok::Bang) {
            return self.power();
        }
        self.enter()?;
        let op = self.bump();
        let arg = self.unary()?;
        self.nesting -= 1;
        let end = arg.off + arg.len;
        match kind {
            Tok::Minus => match arg.kind {
                // Fold `-literal` into a literal.
                Kind::Lit(Num::Float(f)) => self.node(Kind::Lit(Num::Float(-f)), op.start, end),
                Kind::Lit(Num::Int(i)) if i.checked_neg().is_some() => {
                    self.node(Kind::Lit(Num::Int(-i)), op.start, end)
                }
                _ => self.node(Kind::Neg(Box::new(arg)), op.start, end),
            },
            Tok::Bang => self.node(Kind::Not(Box::new(arg)), op.start, end),
            _ => Ok(Node {
                off: op.start,
                len: end - op.start,
                ..arg
            }),
        }
    }

    fn power(&mut self) -> Result<Node, ExprError> {
        let base = self.primary()?;
        if self.tok.kind != Tok::Caret {
            return Ok(base);
        }
        self.bump();
        self.enter()?;
        let exp = self.unary()?;
        self.nesting -= 1;
        self.binary(BinOp::Pow, base, exp)
    }

    fn primary(&mut self) -> Result<Node, ExprError> {
        let t = self.tok.clone();
        match t.kind {
            Tok::Num(n) => {
                self.bump();
                self.node(Kind::Lit(n), t.start, t.end)
            }
            Tok::LParen => {
                self.bump();
                let inner = self.expr()?;
                let close = self.expect(Tok::RParen, "`)`")?;
                // The parentheses belong to the span, so carets cover `(a - b)` whole.
                Ok(Node {
                    off: t.start,
                    len: close.end - t.start,
                    ..inner
                })
            }
            Tok::Ident => {
                self.bump();
                let name = &self.src[t.start..t.end];
                match self.tok.kind {
                    Tok::LParen => self.call(name, t.start),
                    Tok::LBrack => {
                        self.note_var(name);
                        self.bump();
                        let index = self.expr()?;
                        let close = self.expect(Tok::RBrack, "`]`")?;
                        self.node(
                            Kind::Index(name.into(), Box::new(index)),
                            t.start,
                            close.end,
                        )
                    }
                    _ => {
                        self.note_var(name);
                        self.node(Kind::Var(name.into()), t.start, t.end)
                    }
                }
            }
            _ => Err(self.unexpected("a number, a name or `(`")),
        }
    }

    /// `sum_of(k, lo, hi, body[, where])`, `count_of(k, lo, hi, where)`, `min_of`, `max_of`.
    fn aggregate(&mut self, name: &str, op: AggOp, start: usize) -> Result<Node, ExprError> {
        self.bump(); // `(`
        if self.tok.kind != Tok::Ident {
            return Err(self.unexpected(&format!(
                "an index variable: `{name}(k, lo, hi, …)` runs `k` from lo to hi - 1"
            )));
        }
        let var_tok = self.bump();
        let var = self.src[var_tok.start..var_tok.end].to_string();
        self.expect(Tok::Comma, "`,`")?;
        let lo = self.expr()?;
        self.expect(Tok::Comma, "`,`")?;
        let hi = self.expr()?;
        self.expect(Tok::Comma, "`,`")?;
        self.bound.push(var.clone());
        let first = self.expr();
        let second = match (&first, self.tok.kind == Tok::Comma) {
            (Ok(_), true) => {
                self.bump();
                Some(self.expr())
            }
            _ => None,
        };
        self.bound.pop();
        let first = first?;
        let second = second.transpose()?;
        let close = self.expect(Tok::RParen, "`,` or `)`")?;
        let (body, pred) = match (op, second) {
            (AggOp::Count, None) => (None, Some(first)),
            (AggOp::Count, Some(_)) => {
                return Err(ExprError::new(
                    format!("`{name}` takes 4 arguments: (k, lo, hi, where)"),
                    start,
                    close.end - start,
                ));
            }
            (_, second) => (Some(first), second),
        };
        let agg = Aggregate {
            op,
            var: var.into(),
            lo,
            hi,
            body,
            pred,
        };
        self.node(Kind::Agg(Box::new(agg)), start, close.end)
    }

    fn call(&mut self, name: &str, start: usize) -> Result<Node, ExprError> {
        if let Some(&(_, op)) = AGGREGATES.iter().find(|(n, _)| *n == name) {
            self.enter()?;
            let node = self.aggregate(name, op, start);
            self.nesting -= 1;
            return node;
        }
        let Some(&(_, func)) = FUNCS.iter().find(|(n, _)| *n == name) else {
            let mut message = format!("unknown function `{name}`");
            let all = || {
                FUNCS
                    .iter()
                    .map(|(n, _)| *n)
                    .chain(AGGREGATES.iter().map(|(n, _)| *n))
            };
            match crate::diagnostic::did_you_mean(name, all()) {
                Some(hint) => message = format!("{message}; {hint}"),
                None => {
                    let names: Vec<&str> = all().collect();
                    message = format!("{message} (functions: {})", names.join(", "));
                }
            }
            return Err(ExprError::new(message, start, name.len()));
        };
        self.bump(); // `(`
        let mut args = Vec::new();
        if self.tok.kind != Tok::RParen {
            loop {
                args.push(self.expr()?);
                if self.tok.kind != Tok::Comma {
                    break;
                }
                self.bump();
            }
        }
        let close = self.expect(Tok::RParen, "`,` or `)`")?;
        let (lo, hi) = func.arity();
        if args.len() < lo || args.len() > hi {
            let want = match (lo, hi) {
                (lo, hi) if lo == hi => format!("{lo} argument{}", if lo == 1 { "" } else { "s" }),
                (lo, _) => format!("at least {lo} argument{}", if lo == 1 { "" } else { "s" }),
            };
            return Err(ExprError::new(
                format!("`{name}` takes {want}, got {}", args.len()),
                start,
                close.end - start,
            ));
        }
        self.node(Kind::Call(func, args), start, close.end)
    }

    fn expect(&mut self, kind: Tok, what: &str) -> Result<Token, ExprError> {
        if self.tok.kind == kind {
            Ok(self.bump())
        } else {
            Err(self.unexpected(what))
        }
    }

    fn note_var(&mut self, name: &str) {
        if !self.bound.iter().any(|b| b == name) && !self.vars.iter().any(|v| v == name) {
            self.vars.push(name.to_string());
        }
    }
}

fn find_var(node: &Node, name: &str) -> Option<std::ops::Range<usize>> {
    match &node.kind {
        Kind::Lit(_) => None,
        Kind::Var(n) => (**n == *name).then(|| node.off..node.off + node.len),
        Kind::Index(n, i) => {
            if **n == *name {
                Some(node.off..node.off + n.len())
            } else {
                find_var(i, name)
            }
        }
        Kind::Neg(a) | Kind::Not(a) => find_var(a, name),
        Kind::Bin(_, a, b) => find_var(a, name).or_else(|| find_var(b, name)),
        Kind::Call(_, args) => args.iter().find_map(|a| find_var(a, name)),
        Kind::Agg(a) => a.children().find_map(|n| find_var(n, name)),
    }
}

impl Aggregate {
    fn children(&self) -> impl Iterator<Item = &Node> {
        [
            Some(&self.lo),
            Some(&self.hi),
            self.body.as_ref(),
            self.pred.as_ref(),
        ]
        .into_iter()
        .flatten()
    }

    fn eval(&self, node: &Node, env: &dyn Env, division: Division) -> Result<Num, ExprError> {
        let bound = |n: &Node| range_bound(eval(n, env, division)?, (n.off, n.len));
        let (lo, hi) = (bound(&self.lo)?, bound(&self.hi)?);
        let mut visit = |k: i64| {
            let env = Bound {
                inner: env,
                name: &self.var,
                value: k,
            };
            if let Some(p) = &self.pred
                && !eval(p, &env, division)?.truthy()
            {
                return Ok(None);
            }
            match &self.body {
                Some(b) => eval(b, &env, division).map(Some),
                None => Ok(Some(Num::Int(1))),
            }
        };
        aggregate(
            self.op,
            (lo, hi),
            (node.off, node.len),
            division,
            &mut visit,
        )
    }
}

/// An aggregate's range bound `v` (at `span`), which must be an integer.
fn range_bound(v: Num, (off, len): (usize, usize)) -> Result<i64, ExprError> {
    v.as_i64().ok_or_else(|| {
        ExprError::new(
            format!("a range bound must be an integer, got {v}"),
            off,
            len,
        )
    })
}

/// An aggregate's loop over `lo..hi`, shared by both evaluators: `visit(k)` is `None` when index
/// `k` fails the predicate, else the body's value there (anything for `count_of`); `span` is the
/// aggregate's place, for errors.
fn aggregate<E: From<ExprError>>(
    op: AggOp,
    (lo, hi): (i64, i64),
    span: (usize, usize),
    division: Division,
    visit: &mut dyn FnMut(i64) -> Result<Option<Num>, E>,
) -> Result<Num, E> {
    let at = |m: String| E::from(ExprError::new(m, span.0, span.1));
    if hi.saturating_sub(lo) > MAX_AGGREGATE_LEN {
        return Err(at(format!(
            "the range {lo}..{hi} is longer than {MAX_AGGREGATE_LEN}"
        )));
    }
    let mut acc: Option<Num> = None;
    let mut count: i64 = 0;
    for k in lo..hi {
        let Some(v) = visit(k)? else { continue };
        count += 1;
        if op == AggOp::Count {
            continue;
        }
        acc = Some(match (acc, op) {
            (None, _) => v,
            (Some(a), AggOp::Sum) => {
                binary(BinOp::Add, a, v, division).map_err(|m| at(m.into()))?
            }
            (Some(a), op) => {
                let less = binary(BinOp::Lt, v, a, division)
                    .map_err(|m| at(m.into()))?
                    .truthy();
                let take = (op == AggOp::Min) == less && v != a;
                match (take, a, v) {
                    (_, Num::Float(_), _) | (_, _, Num::Float(_)) => {
                        Num::Float(if take { v } else { a }.as_f64())
                    }
                    _ => {
                        if take {
                            v
                        } else {
                            a
                        }
                    }
                }
            }
        });
    }
    match op {
        AggOp::Count => Ok(Num::Int(count)),
        AggOp::Sum => Ok(acc.unwrap_or(Num::Int(0))),
        AggOp::Min | AggOp::Max => acc.ok_or_else(|| {
            at(format!(
                "no index in {lo}..{hi} passes: the minimum/maximum of nothing"
            ))
        }),
    }
}

/// `env` with one aggregate's index variable bound.
struct Bound<'a> {
    inner: &'a dyn Env,
    name: &'a str,
    value: i64,
}

impl Env for Bound<'_> {
    fn var(&self, name: &str) -> Option<Num> {
        if name == self.name {
            Some(Num::Int(self.value))
        } else {
            self.inner.var(name)
        }
    }
    fn index(&self, name: &str, i: i64) -> Option<Num> {
        self.inner.index(name, i)
    }
}

// ---------------------------------------------------------------------------------------------------------
// Evaluation

fn err_at(node: &Node, message: impl Into<String>) -> ExprError {
    ExprError::new(message, node.off, node.len)
}

fn eval(node: &Node, env: &dyn Env, division: Division) -> Result<Num, ExprError> {
    match &node.kind {
        Kind::Lit(n) => Ok(*n),
        Kind::Var(name) => env
            .var(name)
            .ok_or_else(|| err_at(node, format!("unknown variable `{name}`"))),
        Kind::Index(name, index) => {
            let iv = eval(index, env, division)?;
            let i = iv
                .as_i64()
                .ok_or_else(|| err_at(index, format!("index must be an integer, got {iv}")))?;
            env.index(name, i).ok_or_else(|| {
                err_at(
                    node,
                    format!("`{name}[{i}]`: unknown array or index out of range"),
                )
            })
        }
        Kind::Neg(a) => match eval(a, env, division)? {
            Num::Int(i) => i
                .checked_neg()
                .map(Num::Int)
                .ok_or_else(|| err_at(node, "integer overflow")),
            Num::Float(f) => Ok(Num::Float(-f)),
        },
        Kind::Not(a) => Ok(Num::from_bool(!eval(a, env, division)?.truthy())),
        Kind::Bin(BinOp::And, a, b) => Ok(Num::from_bool(
            eval(a, env, division)?.truthy() && eval(b, env, division)?.truthy(),
        )),
        Kind::Bin(BinOp::Or, a, b) => Ok(Num::from_bool(
            eval(a, env, division)?.truthy() || eval(b, env, division)?.truthy(),
        )),
        Kind::Bin(op, a, b) => {
            let (x, y) = (eval(a, env, division)?, eval(b, env, division)?);
            binary(*op, x, y, division).map_err(|m| err_at(node, m))
        }
        Kind::Agg(a) => a.eval(node, env, division),
        Kind::Call(func, args) => call(*func, args.len(), &mut |k| eval(&args[k], env, division))
            .map_err(|e| match e {
                CallError::Arg(e) => e,
                CallError::Msg(m) => err_at(node, m),
            }),
    }
}

fn finite(f: f64) -> Result<Num, &'static str> {
    if f.is_finite() {
        Ok(Num::Float(f))
    } else {
        Err("result is not a finite number")
    }
}

#[inline]
fn binary(op: BinOp, x: Num, y: Num, division: Division) -> Result<Num, &'static str> {
    const OVERFLOW: &str = "integer overflow";
    const DIV0: &str = "division by zero";
    let real_div = op == BinOp::Div && division == Division::Real;
    if let (Num::Int(a), Num::Int(b), false) = (x, y, real_div) {
        let r = match op {
            BinOp::Add => a.checked_add(b),
            BinOp::Sub => a.checked_sub(b),
            BinOp::Mul => a.checked_mul(b),
            BinOp::Div if b == 0 => return Err(DIV0),
            BinOp::Div => a.checked_div(b),
            BinOp::Rem if b == 0 => return Err(DIV0),
            BinOp::Rem => a.checked_rem(b),
            BinOp::Pow if b >= 0 => int_pow(a, b),
            BinOp::Pow => return finite((a as f64).powf(b as f64)),
            _ => return Ok(compare(op, a.cmp(&b))),
        };
        return r.map(Num::Int).ok_or(OVERFLOW);
    }
    let (a, b) = (x.as_f64(), y.as_f64());
    match op {
        BinOp::Add => finite(a + b),
        BinOp::Sub => finite(a - b),
        BinOp::Mul => finite(a * b),
        BinOp::Div | BinOp::Rem if b == 0.0 => Err(DIV0),
        BinOp::Div => finite(a / b),
        BinOp::Rem => finite(a % b),
        BinOp::Pow => finite(a.powf(b)),
        _ => Ok(match a.partial_cmp(&b) {
            Some(ord) => compare(op, ord),
            None => Num::from_bool(op == BinOp::Ne),
        }),
    }
}

fn int_pow(a: i64, b: i64) -> Option<i64> {
    match a {
        0 => Some(i64::from(b == 0)),
        1 => Some(1),
        -1 => Some(if b % 2 == 0 { 1 } else { -1 }),
        _ => a.checked_pow(u32::try_from(b).ok()?),
    }
}

fn compare(op: BinOp, ord: std::cmp::Ordering) -> Num {
    use std::cmp::Ordering::*;
    Num::from_bool(match op {
        BinOp::Lt => ord == Less,
        BinOp::Le => ord != Greater,
        BinOp::Gt => ord == Greater,
        BinOp::Ge => ord != Less,
        BinOp::Eq => ord == Equal,
        _ => ord != Equal,
    })
}

enum CallError {
    Arg(ExprError),
    Msg(&'static str),
}

impl From<ExprError> for CallError {
    fn from(e: ExprError) -> Self {
        CallError::Arg(e)
    }
}

/// A function of `count` arguments, shared by both evaluators: `arg(k)` evaluates argument `k`,
/// only when the function needs it.
fn call(
    func: Func,
    count: usize,
    arg: &mut dyn FnMut(usize) -> Result<Num, ExprError>,
) -> Result<Num, CallError> {
    if count == 0 {
        return Err(CallError::Msg("missing argument"));
    }
    let first = arg(0)?;
    let mut second = || match count {
        1 => Err(CallError::Msg("missing argument")),
        _ => Ok(arg(1)?),
    };
    let r = match func {
        // Only the branch taken is evaluated (`if(i > 0, x[i-1], 0)` never reads x[-1]).
        Func::If => return Ok(arg(if first.truthy() { 1 } else { 2 })?),
        Func::CeilDiv => ceil_div(first, second()?),
        Func::Div => trunc_div(first, second()?),
        Func::Min | Func::Max => {
            let mut acc = first;
            for k in 1..count {
                let v = arg(k)?;
                let take = match (acc, v) {
                    (Num::Int(x), Num::Int(y)) => {
                        (func == Func::Min && y < x) || (func == Func::Max && y > x)
                    }
                    _ => {
                        let (x, y) = (acc.as_f64(), v.as_f64());
                        (func == Func::Min && y < x) || (func == Func::Max && y > x)
                    }
                };
                let float = matches!(acc, Num::Float(_)) || matches!(v, Num::Float(_));
                acc = if take { v } else { acc };
                if float {
                    acc = Num::Float(acc.as_f64());
                }
            }
            Ok(acc)
        }
        Func::Abs => match first {
            Num::Int(i) => i.checked_abs().map(Num::Int).ok_or("integer overflow"),
            Num::Float(f) => Ok(Num::Float(f.abs())),
        },
        Func::Floor | Func::Ceil | Func::Round => match first {
            Num::Int(i) => Ok(Num::Int(i)),
            Num::Float(f) => Ok(Num::Float(match func {
                Func::Floor => f.floor(),
                Func::Ceil => f.ceil(),
                _ => f.round(),
            })),
        },
        Func::Sqrt => match first.as_f64() {
            f if f < 0.0 => Err("square root of a negative number"),
            f => finite(f.sqrt()),
        },
        Func::Log2 => match first.as_f64() {
            f if f <= 0.0 => Err("logarithm of a number that is not positive"),
            f => finite(f.log2()),
        },
        Func::Pow2 => match first {
            Num::Int(k) if (0..63).contains(&k) => Ok(Num::Int(1i64 << k)),
            Num::Int(k) if k >= 63 => Err("integer overflow"),
            k => finite(k.as_f64().exp2()),
        },
    };
    r.map_err(CallError::Msg)
}

/// `div(a, b)`: the quotient truncated toward zero, as C's integer `/`.
fn trunc_div(a: Num, b: Num) -> Result<Num, &'static str> {
    match (a, b) {
        (_, Num::Int(0)) => Err("division by zero"),
        (Num::Int(a), Num::Int(b)) => a.checked_div(b).map(Num::Int).ok_or("integer overflow"),
        _ if b.as_f64() == 0.0 => Err("division by zero"),
        _ => finite((a.as_f64() / b.as_f64()).trunc()),
    }
}

/// Collects the truncating integer divisions under `node` (see [`Expr::truncations`]).
fn truncations(
    node: &Node,
    env: &dyn Env,
    division: Division,
    src: &str,
    out: &mut Vec<Truncation>,
) {
    let operands: (&Node, &Node) = match &node.kind {
        Kind::Lit(_) | Kind::Var(_) => return,
        Kind::Index(_, a) | Kind::Neg(a) | Kind::Not(a) => {
            return truncations(a, env, division, src, out);
        }
        Kind::Bin(op, a, b) => {
            truncations(a, env, division, src, out);
            truncations(b, env, division, src, out);
            let int_div = *op == BinOp::Div && division == Division::Integer;
            if !int_div {
                return;
            }
            (&**a, &**b)
        }
        Kind::Agg(a) => {
            // The body depends on the bound index, so only the bounds are checked.
            truncations(&a.lo, env, division, src, out);
            truncations(&a.hi, env, division, src, out);
            return;
        }
        Kind::Call(func, args) => {
            for a in args {
                truncations(a, env, division, src, out);
            }
            match (func, args.as_slice()) {
                (Func::Div, [a, b]) => (a, b),
                _ => return,
            }
        }
    };
    let (a, b) = operands;
    if let (Ok(Num::Int(x)), Ok(Num::Int(y))) = (eval(a, env, division), eval(b, env, division))
        && y != 0
        && x.checked_rem(y).is_some_and(|r| r != 0)
    {
        let text = src.get(node.off..node.off + node.len).unwrap_or_default();
        out.push(Truncation {
            text: text.to_string(),
            numerator: x,
            denominator: y,
        });
    }
}

fn ceil_div(a: Num, b: Num) -> Result<Num, &'static str> {
    match (a, b) {
        (_, Num::Int(0)) => Err("division by zero"),
        (Num::Int(a), Num::Int(b)) => {
            let q = a.checked_div(b).ok_or("integer overflow")?;
            let round_up = a % b != 0 && ((a < 0) == (b < 0));
            if round_up {
                q.checked_add(1).map(Num::Int).ok_or("integer overflow")
            } else {
                Ok(Num::Int(q))
            }
        }
        _ if b.as_f64() == 0.0 => Err("division by zero"),
        _ => finite((a.as_f64() / b.as_f64()).ceil()),
    }
}

#[cfg(test)]
#[path = "expr_tests.rs"]
mod tests;
