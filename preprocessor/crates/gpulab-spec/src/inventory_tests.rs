//! Tests of `inventory`.

use super::*;

fn paper(text: &str) -> Result<PaperItems, String> {
    PaperItems::parse("p2020", text).map_err(|(line, m)| format!("line {line}: {m}"))
}

const OK: &str = r#"
paper = "Author (2020)"
[[item]]
id = "table1"
kind = "table"
title = "Table 1: times"
state = "re-run"
[[item]]
id = "listing1"
kind = "listing"
title = "Listing 1: the kernel"
state = "re-run"
same_as = "table1"
[[item]]
id = "fig1"
kind = "figure"
title = "Fig. 1: a diagram"
state = "prose"
why = "a diagram of the hardware"
where = "part1/x.md#the-experiment"
[[item]]
id = "gips"
kind = "table"
title = "Table 2: GIPS"
state = "not-reproduced"
why = "needs instruction counts"
"#;

#[test]
fn parses_and_cross_checks_with_the_directives() {
    let p = paper(OK).unwrap();
    assert_eq!(p.items.len(), 4);
    assert_eq!(p.run_by(&p.items[1]), "table1");
    let inv = Inventory { papers: vec![p] };
    let at = |ids: &[&'static str]| {
        ids.iter()
            .enumerate()
            .map(|(i, id)| (*id, format!("c.md#{}", i + 1)))
            .collect::<Vec<_>>()
    };
    assert!(inv.check_reproduces(at(&["p2020:table1"])).is_empty());
    // A re-run item that nothing re-runs; an unknown id (with a suggestion); a not-reproduced item
    // that a directive re-runs after all.
    let problems = inv.check_reproduces(at(&["p2020:tabel1", "p2020:gips", "other:x"]));
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains(
        "`reproduces = \"p2020:tabel1\"` (c.md#1): data/papers/p2020/items.toml has no item `tabel1`; did you mean `table1`?"
    ), "{problems:#?}");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("item `table1` is marked re-run, but no directive"))
    );
    assert!(problems.iter().any(|p| {
        p.contains("item `gips` is marked not reproduced, but a directive re-runs it")
    }));
}

/// Regression (session 10): Widuch's `fig5-conclusions` said `same_as = "fig5"` while a
/// directive of its own re-ran it, so the status table counted the claims of fig5's directive.
#[test]
fn an_item_with_same_as_that_a_directive_names_itself_is_reported() {
    let inv = Inventory {
        papers: vec![paper(OK).unwrap()],
    };
    let problems = inv.check_reproduces([
        ("p2020:table1", "c.md#1".to_string()),
        ("p2020:listing1", "c.md#2".to_string()),
    ]);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(
        problems[0].contains(
            "item `listing1` says `same_as = \"table1\"`, but a directive re-runs it itself (`reproduces = \"p2020:listing1\"`, c.md#2): remove `same_as`"
        ),
        "{problems:#?}"
    );
}

/// Issue 36: errors in items.toml and about `reproduces` ids named no line.
#[test]
fn an_item_error_names_the_line_of_its_item() {
    let p = paper(OK).unwrap();
    let lines: Vec<usize> = p.items.iter().map(|i| i.line).collect();
    let expected: Vec<usize> = OK
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == "[[item]]")
        .map(|(i, _)| i + 2)
        .collect();
    assert_eq!(lines.len(), 4);
    assert!(
        lines
            .iter()
            .zip(&expected)
            .all(|(l, e)| l + 1 >= *e && l <= e),
        "{lines:?} against the lines of `[[item]]` and `id` {expected:?}"
    );
    let no_why = OK.replace("why = \"needs instruction counts\"\n", "");
    let err = paper(&no_why).unwrap_err();
    assert!(
        err.starts_with(&format!("line {}: item `gips`", lines[3])),
        "{err}"
    );
    let problems = Inventory { papers: vec![p] }.check_reproduces([]);
    assert!(
        problems[0].starts_with(&format!(
            "data/papers/p2020/items.toml:{}: item `table1`",
            lines[0]
        )),
        "{problems:?}"
    );
}

#[test]
fn rejects_items_without_a_reason_or_with_a_bad_same_as() {
    let no_why = OK.replace("why = \"needs instruction counts\"\n", "");
    assert!(paper(&no_why).unwrap_err().contains("say why"));
    let bad_same = OK.replace("same_as = \"table1\"", "same_as = \"fig1\"");
    assert!(
        paper(&bad_same)
            .unwrap_err()
            .contains("must name a re-run item")
    );
    let twice = format!(
        "{OK}\n[[item]]\nid = \"fig1\"\nkind = \"figure\"\ntitle = \"x\"\nstate = \"re-run\"\n"
    );
    assert!(paper(&twice).unwrap_err().contains("listed twice"));
    for bad in [
        "javascript:alert(1)",
        "../../etc/passwd.md",
        "/abs.md",
        "x.html",
    ] {
        let text = OK.replace("part1/x.md#the-experiment", bad);
        assert!(
            paper(&text).unwrap_err().contains("must name a chapter"),
            "{bad}"
        );
    }
    let no_where = OK.replace("where = \"part1/x.md#the-experiment\"\n", "");
    assert!(paper(&no_where).unwrap_err().contains("name the chapter"));
    assert!(paper(&OK.replace("kind = \"table\"", "kind = \"tabel\"")).is_err());
}
