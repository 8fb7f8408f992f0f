//! Tests of `expr`.

use super::*;

fn env(pairs: &[(&str, Num)]) -> HashMap<String, Num> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// `e` evaluated with `env`, after checking that its compiled form (`vars` in slots, `arrays`
/// read through `env`) gives the same value or error.
fn both(e: &Expr, env: &dyn Env, vars: &[&str], arrays: &[&str]) -> Result<Num, ExprError> {
    let want = e.eval(env);
    let compiled = e.compile(vars, arrays);
    let mut slots: Vec<Num> = vars.iter().map(|v| env.var(v).unwrap()).collect();
    slots.resize(compiled.slots(), Num::Int(-1));
    let read = |a: usize, j: i64| env.index(arrays[a], j);
    assert_eq!(compiled.eval(&mut slots, &read), want, "{e}");
    want
}

fn ev(src: &str) -> Result<Num, ExprError> {
    both(&Expr::parse(src)?, &NoVars, &[], &[])
}

fn int(src: &str) -> i64 {
    match ev(src) {
        Ok(Num::Int(i)) => i,
        other => panic!("{src}: expected Int, got {other:?}"),
    }
}

fn float(src: &str) -> f64 {
    match ev(src) {
        Ok(Num::Float(f)) => f,
        other => panic!("{src}: expected Float, got {other:?}"),
    }
}

/// An array `x` = [3, 1, 4, 1, 5] for aggregate tests.
struct Arr;
impl Env for Arr {
    fn var(&self, name: &str) -> Option<Num> {
        (name == "N").then_some(Num::Int(5))
    }
    fn index(&self, name: &str, i: i64) -> Option<Num> {
        let x = [3, 1, 4, 1, 5];
        (name == "x")
            .then(|| usize::try_from(i).ok().and_then(|i| x.get(i)))
            .flatten()
            .map(|v| Num::Int(*v))
    }
}

fn agg(src: &str) -> Result<Num, ExprError> {
    both(&Expr::parse(src)?, &Arr, &["N"], &["x"])
}

#[test]
fn aggregates_over_an_index_range() {
    assert_eq!(agg("sum_of(k, 0, N, x[k])").unwrap(), Num::Int(14));
    assert_eq!(
        agg("sum_of(k, 0, 3, x[k])").unwrap(),
        Num::Int(8),
        "hi is exclusive"
    );
    assert_eq!(
        agg("sum_of(k, 2, 2, x[k])").unwrap(),
        Num::Int(0),
        "empty sum"
    );
    assert_eq!(agg("count_of(k, 0, N, x[k] == 1)").unwrap(), Num::Int(2));
    assert_eq!(
        agg("sum_of(k, 0, N, x[k], x[k] > 2)").unwrap(),
        Num::Int(12),
        "with a predicate"
    );
    assert_eq!(agg("min_of(k, 0, N, x[k])").unwrap(), Num::Int(1));
    assert_eq!(agg("max_of(k, 0, N, x[k])").unwrap(), Num::Int(5));
    assert_eq!(agg("max_of(k, 0, N, x[k], k < 3)").unwrap(), Num::Int(4));
    assert_eq!(agg("min_of(k, 0, N, x[k] * 0.5)").unwrap(), Num::Float(0.5));
    // Neighbours by offset, guarded at the edges by a lazy `if`.
    assert_eq!(
        agg("sum_of(k, 0, N, if(k > 0, x[k-1], 0))").unwrap(),
        Num::Int(9)
    );
    // Nested: the number of pairs (j < k) with x[j] < x[k].
    assert_eq!(
        agg("sum_of(k, 0, N, count_of(j, 0, k, x[j] < x[k]))").unwrap(),
        Num::Int(6)
    );
}

#[test]
fn aggregate_errors_are_clear() {
    let e = agg("min_of(k, 0, N, x[k], x[k] > 9)").unwrap_err();
    assert!(e.to_string().contains("minimum/maximum of nothing"), "{e}");
    let e = agg("sum_of(k, 0, N + 1, x[k])").unwrap_err();
    assert!(e.to_string().contains("`x[5]`"), "{e}");
    let e = Expr::parse("sum_of(3, 0, N, x[k])").unwrap_err();
    assert!(e.to_string().contains("an index variable"), "{e}");
    let e = Expr::parse("count_of(k, 0, N, x[k], 1)").unwrap_err();
    assert!(e.to_string().contains("takes 4 arguments"), "{e}");
    let e = Expr::parse("sum_off(k, 0, N, x[k])").unwrap_err();
    assert!(e.to_string().contains("did you mean `sum_of`"), "{e}");
    let e = agg("sum_of(k, 0, 2^40, k)").unwrap_err();
    assert!(e.to_string().contains("longer than"), "{e}");
}

#[test]
fn an_aggregate_index_is_not_a_free_variable() {
    let e = Expr::parse("sum_of(k, 0, N, x[k] * k) + k2").unwrap();
    assert_eq!(e.variables(), ["N", "x", "k2"]);
}

#[test]
fn if_evaluates_only_the_branch_taken() {
    assert_eq!(agg("if(1 > 2, x[-1], 7)").unwrap(), Num::Int(7));
    assert_eq!(agg("if(N == 5, x[4], x[-1])").unwrap(), Num::Int(5));
    assert!(agg("if(0, 1, x[-1])").is_err());
}

fn err(src: &str) -> ExprError {
    match Expr::parse(src).and_then(|e| both(&e, &NoVars, &[], &[])) {
        Err(e) => e,
        Ok(v) => panic!("{src}: expected an error, got {v:?}"),
    }
}

#[test]
fn num_conversions_and_display() {
    assert_eq!(Num::Int(3).as_f64(), 3.0);
    assert_eq!(Num::Float(4.0).as_i64(), Some(4));
    assert_eq!(Num::Float(-4.0).as_i64(), Some(-4));
    assert_eq!(Num::Float(4.5).as_i64(), None);
    assert_eq!(Num::Float(f64::NAN).as_i64(), None);
    assert_eq!(Num::Float(f64::INFINITY).as_i64(), None);
    assert_eq!(Num::Float(1e19).as_i64(), None);
    assert_eq!(Num::Float(i64::MIN as f64).as_i64(), Some(i64::MIN));
    assert_eq!(Num::Int(-7).to_string(), "-7");
    assert_eq!(Num::Float(2.5).to_string(), "2.5");
    assert!(Num::Float(0.1).truthy() && !Num::Int(0).truthy());
}

#[test]
fn literals() {
    assert_eq!(int("42"), 42);
    assert_eq!(float("2.5"), 2.5);
    assert_eq!(float("1e-3"), 0.001);
    assert_eq!(float("1E3"), 1000.0);
    assert_eq!(float(".5"), 0.5);
    assert_eq!(int("-9223372036854775807 - 1"), i64::MIN);
    assert_eq!(int("-3"), -3);
    assert!(err("9223372036854775808").message.contains("too large"));
    assert!(err("2x").message.contains("malformed number"));
    assert!(err("1.5.2").message.contains("malformed number"));
    assert!(err("1e999").message.contains("out of range"));
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(int("1 + 2 * 3"), 7);
    assert_eq!(int("(1 + 2) * 3"), 9);
    assert_eq!(int("10 - 4 - 3"), 3);
    assert_eq!(int("100 / 10 / 5"), 2);
    assert_eq!(int("2 ^ 3 ^ 2"), 512);
    assert_eq!(int("-2^2"), -4);
    assert_eq!(int("(-2)^2"), 4);
    assert_eq!(float("2^-1"), 0.5);
    assert_eq!(int("2 * 3 ^ 2"), 18);
    assert_eq!(int("- -3"), 3);
    assert_eq!(int("+3"), 3);
    assert_eq!(int("7 % 4 * 2"), 6);
    assert_eq!(int("1 + 2 < 4"), 1);
    assert_eq!(int("1 < 2 && 3 < 2 || 1"), 1);
    assert_eq!(int("1 || 0 && 0"), 1);
    assert_eq!(int("!0 == 1"), 1);
    assert_eq!(int("!(1 == 1)"), 0);
}

#[test]
fn integer_semantics() {
    assert_eq!(int("7 / 2"), 3);
    assert_eq!(int("-7 / 2"), -3);
    assert_eq!(int("-7 % 3"), -1);
    assert_eq!(float("7 / 2.0"), 3.5);
    assert_eq!(float("7.0 / 2"), 3.5);
    assert_eq!(int("0^0"), 1);
    assert_eq!(int("(-1)^1000000000000"), 1);
    assert_eq!(int("2^62"), 1 << 62);
    assert!(err("2^63").message.contains("overflow"));
    assert!(err("9223372036854775807 + 1").message.contains("overflow"));
    assert!(err("-9223372036854775807 - 2").message.contains("overflow"));
    assert!(err("4294967296 * 4294967296").message.contains("overflow"));
    assert!(
        err("-(-9223372036854775807 - 1)")
            .message
            .contains("overflow")
    );
    assert!(
        err("(-9223372036854775807 - 1) / -1")
            .message
            .contains("overflow")
    );
    assert!(
        err("(-9223372036854775807 - 1) % -1")
            .message
            .contains("overflow")
    );
}

fn real(src: &str) -> Num {
    Expr::parse_real(src)
        .and_then(|e| both(&e, &NoVars, &[], &[]))
        .unwrap()
}

/// The CGMA bug: `2*N^3 / (2*N^3/BS + N^2)` printed 0, 7, 15 … because integer `/` truncated a metric.
#[test]
fn cgma_metric_formulas_divide_as_reals() {
    let vars = env(&[("N", Num::Int(512)), ("BS", Num::Int(16))]);
    let v1 = Expr::parse_real("2*N^3 / (2*N^3 + N^2)").unwrap();
    let x = v1.eval(&vars).unwrap().as_f64();
    assert!((x - 2.0 * 512f64.powi(3) / (2.0 * 512f64.powi(3) + 512f64.powi(2))).abs() < 1e-12);
    assert!(x > 0.99 && x < 1.0, "{x}");
    let v3 = Expr::parse_real("2*N^3 / (2*N^3/BS + N^2)").unwrap();
    let y = v3.eval(&vars).unwrap().as_f64();
    assert!((y - 15.7538).abs() < 1e-3, "{y}"); // ≈ BS, not 15
    assert_eq!(v3.division(), Division::Real);
    assert_eq!(Expr::parse("N/BS").unwrap().division(), Division::Integer);
}

#[test]
fn real_division_only_changes_slash_between_integers() {
    assert_eq!(real("7 / 2"), Num::Float(3.5));
    assert_eq!(real("8 / 2"), Num::Float(4.0));
    assert_eq!(real("-7 / 2"), Num::Float(-3.5));
    assert_eq!(real("7 % 4"), Num::Int(3));
    assert_eq!(real("div(7, 2)"), Num::Int(3));
    assert_eq!(real("ceil_div(7, 2)"), Num::Int(4));
    assert_eq!(real("2 * 3 + 1"), Num::Int(7));
    assert!(Expr::parse_real("1 / 0").unwrap().eval(&NoVars).is_err());
    let (claim, _) = Expr::parse_operand("N / 3").unwrap();
    assert_eq!(claim.division(), Division::Real);
}

#[test]
fn div_truncates_toward_zero_in_both_modes() {
    assert_eq!(int("div(7, 2)"), 3);
    assert_eq!(int("div(-7, 2)"), -3);
    assert_eq!(float("div(7.5, 2)"), 3.0);
    assert_eq!(err("div(1, 0)").message, "division by zero");
    assert!(err("div(1)").message.contains("takes 2 arguments"));
}

#[test]
fn truncations_name_each_lossy_integer_division() {
    let vars = env(&[("N", Num::Int(1000)), ("M", Num::Int(16))]);
    let int_expr = Expr::parse("N/M * M + (N/(2*M))").unwrap();
    let t = int_expr.truncations(&vars);
    assert_eq!(t.len(), 2, "{t:?}");
    assert_eq!(
        (t[0].text.as_str(), t[0].numerator, t[0].denominator),
        ("N/M", 1000, 16)
    );
    assert_eq!(t[1].text, "(N/(2*M))");
    assert_eq!(
        t[0].to_string(),
        "`N/M` is 1000 / 16 = 62.5, truncated to 62"
    );
    // Exact divisions are not truncations; a real `/` never truncates; `div` always may.
    assert!(Expr::parse("N/8").unwrap().truncations(&vars).is_empty());
    let real_expr = Expr::parse_real("N/M + div(N, 3)").unwrap();
    let t = real_expr.truncations(&vars);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].text, "div(N, 3)");
}

#[test]
fn division_by_zero_is_an_error_with_span() {
    let e = err("1 + 4 / (2 - 2)");
    assert_eq!(e.message, "division by zero");
    assert_eq!((e.offset, e.len), (4, 11));
    assert_eq!(err("1 % 0").message, "division by zero");
    assert_eq!(err("1.0 / 0").message, "division by zero");
    assert_eq!(err("1.5 % 0.0").message, "division by zero");
    assert_eq!(err("ceil_div(3, 0)").message, "division by zero");
    assert_eq!(err("ceil_div(3.0, 0.0)").message, "division by zero");
    assert!(err("1e300 * 1e300").message.contains("finite"));
}

#[test]
fn comparisons() {
    for (src, want) in [
        ("1 < 2", 1),
        ("2 < 2", 0),
        ("2 <= 2", 1),
        ("3 > 2.5", 1),
        ("3 >= 3.0", 1),
        ("3 == 3.0", 1),
        ("3 != 3", 0),
        ("9007199254740993 > 9007199254740992", 1),
    ] {
        assert_eq!(int(src), want, "{src}");
    }
    let e = Expr::parse("1 < 2 < 3").unwrap_err();
    assert!(e.message.contains("chained"));
    assert_eq!(e.offset, 6);
}

#[test]
fn short_circuit_skips_errors() {
    assert_eq!(int("0 && 1/0"), 0);
    assert_eq!(int("1 || 1/0"), 1);
    assert_eq!(err("1 && 1/0").message, "division by zero");
    let e = Expr::parse("N > 0 && M / N > 2").unwrap();
    let vars = env(&[("N", Num::Int(0)), ("M", Num::Int(5))]);
    assert_eq!(e.eval(&vars).unwrap(), Num::Int(0));
}

#[test]
fn functions() {
    assert_eq!(int("ceil_div(10, 3)"), 4);
    assert_eq!(int("ceil_div(9, 3)"), 3);
    assert_eq!(int("ceil_div(-7, 2)"), -3);
    assert_eq!(int("ceil_div(-7, -2)"), 4);
    assert_eq!(int("ceil_div(7, -2)"), -3);
    assert_eq!(float("ceil_div(7.0, 2)"), 4.0);
    assert_eq!(int("min(3, 1, 2)"), 1);
    assert_eq!(int("max(3, 7, 2)"), 7);
    assert_eq!(float("max(3, 7.5, 2)"), 7.5);
    assert_eq!(float("min(1, 2.5)"), 1.0);
    assert_eq!(int("min(5)"), 5);
    assert_eq!(int("abs(-4)"), 4);
    assert_eq!(float("abs(-4.5)"), 4.5);
    assert!(
        err("abs(-9223372036854775807 - 1)")
            .message
            .contains("overflow")
    );
    assert_eq!(float("floor(2.7)"), 2.0);
    assert_eq!(float("ceil(2.1)"), 3.0);
    assert_eq!(float("round(2.5)"), 3.0);
    assert_eq!(int("floor(7)"), 7);
    assert_eq!(float("sqrt(16)"), 4.0);
    assert_eq!(float("log2(1024)"), 10.0);
    assert_eq!(int("pow2(10)"), 1024);
    assert_eq!(float("pow2(-1)"), 0.5);
    assert!(err("pow2(63)").message.contains("overflow"));
    assert!(err("sqrt(-1)").message.contains("negative"));
    assert!(err("log2(0)").message.contains("not positive"));
}

#[test]
fn function_errors_at_parse_time() {
    let e = Expr::parse("ceil_div(1)").unwrap_err();
    assert_eq!(e.message, "`ceil_div` takes 2 arguments, got 1");
    assert_eq!((e.offset, e.len), (0, 11));
    assert!(
        Expr::parse("min()")
            .unwrap_err()
            .message
            .contains("at least 1 argument")
    );
    assert!(
        Expr::parse("sqrt(1, 2)")
            .unwrap_err()
            .message
            .contains("takes 1 argument,")
    );
    let e = Expr::parse("2 * celi_div(N, 2)").unwrap_err();
    assert!(
        e.message.contains("unknown function `celi_div`"),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("did you mean `ceil_div`?"),
        "{}",
        e.message
    );
    assert_eq!((e.offset, e.len), (4, 8));
    assert!(
        Expr::parse("zzz(1)")
            .unwrap_err()
            .message
            .contains("functions: ceil_div")
    );
    // A function name that is not called is an ordinary variable.
    let e = Expr::parse("min + 1").unwrap();
    assert_eq!(e.variables(), vec!["min"]);
}

#[test]
fn variables_dotted_and_indexed() {
    let e = Expr::parse("shared_2d.time_ms / global_2d.time_ms.min + N * x[i + N]").unwrap();
    assert_eq!(
        e.variables(),
        vec!["shared_2d.time_ms", "global_2d.time_ms.min", "N", "x", "i"]
    );
    assert_eq!(e.variable_span("global_2d.time_ms.min"), Some(20..41));
    assert_eq!(e.variable_span("x"), Some(48..49));
    assert_eq!(e.variable_span("i"), Some(50..51));
    assert_eq!(e.variable_span("nope"), None);
    let e = Expr::parse("N * N + N").unwrap();
    assert_eq!(e.variables(), vec!["N"]);
    assert_eq!(
        Expr::parse("max(2, -(M + N))").unwrap().variable_span("N"),
        Some(13..14)
    );
    assert_eq!(e.source(), "N * N + N");
    assert_eq!(e.to_string(), "N * N + N");
}

#[test]
fn eval_with_maps() {
    let e = Expr::parse("2*N^3 / (M*4)").unwrap();
    let h = env(&[("N", Num::Int(10)), ("M", Num::Int(5))]);
    assert_eq!(e.eval(&h).unwrap(), Num::Int(100));
    let b: BTreeMap<String, Num> = [
        ("N".to_string(), Num::Float(10.0)),
        ("M".to_string(), Num::Int(5)),
    ]
    .into();
    assert_eq!(e.eval(&b).unwrap(), Num::Float(100.0));
    let d = Expr::parse("a.b.c + 1").unwrap();
    assert_eq!(
        d.eval(&env(&[("a.b.c", Num::Int(1))])).unwrap(),
        Num::Int(2)
    );
    assert_eq!(e.eval_f64(&h).unwrap(), 100.0);
}

#[test]
fn unknown_variable_names_it_with_offset() {
    let e = Expr::parse("N + NN * 2").unwrap();
    let er = e.eval(&env(&[("N", Num::Int(1))])).unwrap_err();
    assert_eq!(er.message, "unknown variable `NN`");
    assert_eq!((er.offset, er.len), (4, 2));
    assert_eq!(er.span(), 4..6);
    assert_eq!(er.clone().shifted(10).offset, 14);
    assert_eq!(er.to_string(), "unknown variable `NN`");
}

struct Arrays;
impl Env for Arrays {
    fn var(&self, name: &str) -> Option<Num> {
        (name == "i").then_some(Num::Int(2))
    }
    fn index(&self, name: &str, i: i64) -> Option<Num> {
        let x = [1.5, 2.5, 3.5, 4.5];
        (name == "x")
            .then(|| usize::try_from(i).ok().and_then(|i| x.get(i)))
            .flatten()
            .map(|v| Num::Float(*v))
    }
}

#[test]
fn indexing() {
    let ix = |src: &str| both(&Expr::parse(src).unwrap(), &Arrays, &["i"], &["x"]);
    assert_eq!(ix("x[i] * 2").unwrap(), Num::Float(7.0));
    assert_eq!(ix("x[i + 1.0]").unwrap(), Num::Float(4.5));
    let e = ix("x[i * 10]").unwrap_err();
    assert!(e.message.contains("`x[20]`"), "{}", e.message);
    assert!(
        ix("y[0] + z")
            .unwrap_err()
            .message
            .contains("`y[0]`: unknown array")
    );
    let e = ix("x[0.5]").unwrap_err();
    assert!(e.message.contains("index must be an integer"));
    assert_eq!(e.offset, 2);
    assert!(
        Expr::parse("x[1")
            .unwrap_err()
            .message
            .contains("expected `]`")
    );
}

#[test]
fn syntax_errors_have_positions() {
    let cases = [
        ("1 +", "unexpected end of expression", 3, 0),
        ("(1 + 2", "expected `)`", 6, 0),
        ("1 2", "unexpected `2`", 2, 1),
        ("N = 3", "use `==`", 2, 1),
        ("a & b", "use `&&`", 2, 1),
        ("a | b", "use `||`", 2, 1),
        ("2 ** 3", "use `^`", 2, 2),
        ("a.", "expected a name after `.`", 1, 1),
        ("a.1", "expected a name after `.`", 1, 1),
        ("3 # 4", "unexpected character `#`", 2, 1),
        ("3 + é", "unexpected character `é`", 4, 2),
        ("", "unexpected end of expression", 0, 0),
        ("f(1,)", "unknown function", 0, 1),
        ("min(1,)", "unexpected `)`", 6, 1),
        (")", "unexpected `)`", 0, 1),
    ];
    for (src, msg, off, len) in cases {
        let e = Expr::parse(src).unwrap_err();
        assert!(e.message.contains(msg), "{src}: {}", e.message);
        assert_eq!((e.offset, e.len), (off, len), "{src}: {}", e.message);
        assert!(e.offset + e.len <= src.len());
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(
        Expr::parse(&deep)
            .unwrap_err()
            .message
            .contains("nested too deeply")
    );
    let long = vec!["1"; 10_000].join(" + ");
    assert!(
        Expr::parse(&long)
            .unwrap_err()
            .message
            .contains("nested too deeply")
    );
    let negs = format!("{}1", "-".repeat(10_000));
    assert!(Expr::parse(&negs).is_err());
    let ok = vec!["1"; 120].join(" + ");
    assert_eq!(
        Expr::parse(&ok).unwrap().eval(&NoVars).unwrap(),
        Num::Int(120)
    );
}

#[test]
fn parse_operand_stops_before_unknown_tokens() {
    let src = "a.t / b.t ~= 2 within 5%";
    let (e, n) = Expr::parse_operand(src).unwrap();
    assert_eq!(e.source(), "a.t / b.t");
    assert_eq!(n, 9);
    let (e, n) = Expr::parse_operand("x.t < y.t where N >= 640").unwrap();
    assert_eq!((e.source(), n), ("x.t", 3));
    let (e, n) = Expr::parse_operand("2 where N").unwrap();
    assert_eq!((e.source(), n), ("2", 1));
    let (e, _) = Expr::parse_operand("max(a < b, 2) + 1 && c").unwrap();
    assert_eq!(e.source(), "max(a < b, 2) + 1");
    assert!(Expr::parse_operand(" < 3").is_err());
}

#[test]
fn clone_and_equality() {
    let a = Expr::parse("1 + N").unwrap();
    assert_eq!(a.clone(), a);
    assert_ne!(a, Expr::parse("1 + M").unwrap());
    assert_eq!("1 + N".parse::<Expr>().unwrap(), a);
}

#[test]
fn fast_enough_for_per_element_formulas() {
    let e = Expr::parse("x[i] * 2 + sqrt(i) - min(i, 3)").unwrap();
    struct E(i64);
    impl Env for E {
        fn var(&self, _name: &str) -> Option<Num> {
            Some(Num::Int(self.0))
        }
        fn index(&self, _name: &str, i: i64) -> Option<Num> {
            Some(Num::Float(i as f64))
        }
    }
    let start = std::time::Instant::now();
    let mut acc = 0.0;
    for i in 0..1_000_000 {
        acc += e.eval(&E(i)).unwrap().as_f64();
    }
    assert!(acc > 0.0);
    // Generous for unoptimised test builds; release builds are far faster.
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
}
