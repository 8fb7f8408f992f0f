//! Tests of `inline`.

use super::*;

#[test]
fn finds_values_outside_code_only() {
    let md = "A {{#gpulab copy copy.gbps N=2}} and `{{#gpulab x y.z}}`.\n\n\
              ```\n{{#gpulab a b.c}}\n```\n\n{{#gpulabx y}} {{#gpulab open\n\nnext";
    let found = find_inline(md);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(
        &md[found[0].block.clone()],
        "{{#gpulab copy copy.gbps N=2}}"
    );
    assert_eq!(found[0].body, " copy copy.gbps N=2");
    assert!(!found[0].unclosed);
    assert_eq!(found[1].body, " open");
    assert!(found[1].unclosed, "a blank line ends it");
}

#[test]
fn splits_experiment_expression_and_values() {
    let body = " sgemm 100 * warptile[N=8192,device=h100].gflops / cublas.gflops N=4096 unit=%";
    let parts = parse(body).unwrap();
    assert_eq!(parts.experiment.get_ref(), "sgemm");
    assert_eq!(parts.operands.len(), 2);
    let (w, c) = (&parts.operands[0], &parts.operands[1]);
    assert_eq!(&body[w.variant.span()], "warptile");
    assert_eq!(&body[w.metric.span()], "gflops");
    assert_eq!(w.own.len(), 2);
    assert_eq!(&body[w.own[1].value.span()], "h100");
    assert_eq!(c.variant.get_ref(), "cublas");
    assert_eq!(&body[c.metric.span()], "gflops");
    assert_eq!(parts.shared.len(), 2);
    assert_eq!(
        &body[parts.expr_span.clone()],
        "100 * warptile[N=8192,device=h100].gflops / cublas.gflops"
    );
}

#[test]
fn problems_point_into_the_body() {
    let at = |body: &str| {
        let (_, span, _) = parse(body).err().expect("a problem");
        body[span].to_string()
    };
    assert_eq!(at(" sgemm"), "sgemm");
    assert_eq!(at(" sgemm N=4"), "sgemm");
    assert_eq!(
        at(" sgemm a.gflops +"),
        "",
        "the end, where an operand is missing"
    );
    assert_eq!(at(" sgemm N * a.gflops"), "N");
    assert_eq!(at(" sgemm a[N].gflops"), "N");
    assert_eq!(at(" sgemm a[N=4.gflops"), "[");
    assert_eq!(
        at(" sgemm ï[N=4].gflops"),
        "[",
        "a name starts after a non-ASCII letter"
    );
}
