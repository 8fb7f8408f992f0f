//! Chart tests over SYNTHETIC data (made-up series, not measurements).

use super::*;

/// A hand-made [`ChartData`]: the drawing code sees only the trait.
struct Synthetic {
    x: XAxis,
    y: ValueAxis,
    series: Vec<Series>,
}

impl ChartData for Synthetic {
    fn x_axis(&self) -> XAxis {
        self.x.clone()
    }
    fn value_axis(&self) -> ValueAxis {
        self.y.clone()
    }
    fn series(&self) -> Vec<Series> {
        self.series.clone()
    }
    fn series_label(&self) -> String {
        "variant".into()
    }
}

fn v(x: f64, value: f64) -> ChartPoint {
    ChartPoint {
        x,
        value: PointValue::Value(value),
        tip: None,
    }
}

fn failed(x: f64) -> ChartPoint {
    ChartPoint {
        x,
        value: PointValue::Failed,
        tip: None,
    }
}

fn missing(x: f64) -> ChartPoint {
    ChartPoint {
        x,
        value: PointValue::Missing,
        tip: None,
    }
}

fn time_axis(log: bool) -> ValueAxis {
    ValueAxis {
        label: "time (ms)".into(),
        unit: Unit::Millis,
        log,
        better: Unit::Millis.better(),
    }
}

fn numeric_x(log: bool) -> XAxis {
    XAxis {
        label: "N".into(),
        scale: XScale::Numeric { log },
    }
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// The elements starting with `prefix` that lie below the first legend row (first y > 20).
fn in_plot<'s>(svg: &'s str, prefix: &str) -> Vec<&'s str> {
    svg.split('<')
        .filter(|e| e.starts_with(prefix))
        .filter(|e| {
            let y = if let Some(at) = e.find("points=\"") {
                e[at + 8..].split([',', ' ']).nth(1)
            } else if let Some(at) = e.find(" cy=\"").or_else(|| e.find(" y=\"")) {
                e[at..].split('"').nth(1)
            } else {
                None
            };
            y.and_then(|y| y.parse::<f64>().ok())
                .is_some_and(|y| y > 20.0)
        })
        .collect()
}

/// Data lines: polylines stroked in a palette colour (grid and axes use `currentColor`) in the
/// plot, not the legend. A dashed line counts once per dash.
fn data_lines(svg: &str) -> usize {
    in_plot(svg, "polyline fill=\"none\" stroke=\"#").len()
}

/// Data lines of series `index` (its colour).
fn lines_of(svg: &str, index: usize) -> usize {
    let stroke = format!(
        "polyline fill=\"none\" stroke=\"{}\"",
        hex(palette::series_color(index))
    );
    in_plot(svg, &stroke).len()
}

fn assert_theme_neutral(svg: &str) {
    assert!(svg.starts_with("<svg class=\"gpulab-chart-svg\""), "{svg}");
    assert!(svg.contains("viewBox=\"0 0 720 "));
    assert!(svg.contains("width=\"100%\""));
    assert!(!svg.contains('\n'), "one line");
    assert!(!svg.to_uppercase().contains("#FFFFFF"), "no white fill");
    assert!(!svg.contains(palette::FG_HEX), "sentinel replaced");
    assert!(svg.contains("currentColor"));
    assert!(!svg.contains("font-family=\"sans-serif\""));
    assert!(svg.ends_with("</svg>"));
}

fn line_data() -> Synthetic {
    Synthetic {
        x: numeric_x(true),
        y: time_axis(true),
        series: vec![
            Series {
                name: "Global memory".into(),
                points: vec![v(160.0, 1.0), v(320.0, 8.0), v(640.0, 64.0)],
            },
            Series {
                name: "Shared memory".into(),
                points: vec![
                    v(160.0, 0.25),
                    v(320.0, 2.0),
                    failed(640.0),
                    v(1280.0, 16.0),
                    v(2560.0, 128.0),
                ],
            },
        ],
    }
}

#[test]
fn line_chart_has_one_polyline_per_run_and_names() {
    let chart = draw(ChartKind::Line, &line_data(), "synthetic line")
        .unwrap()
        .unwrap();
    assert_theme_neutral(&chart.svg);
    // Global (solid): one run of 3; Shared (dashed): runs of 2 and 2 around the failure, in dashes.
    assert_eq!(lines_of(&chart.svg, 0), 1);
    assert_eq!(lines_of(&chart.svg, 1), 2);
    assert_eq!(
        count(&chart.svg, "stroke-dasharray=\"8 4\""),
        3,
        "Shared's two runs and its legend swatch are dashed, one polyline each"
    );
    // Markers: circles for Global, squares for Shared, in the plot and once in the legend.
    assert_eq!(in_plot(&chart.svg, "circle").len(), 3);
    assert_eq!(count(&chart.svg, "<circle"), 4);
    assert!(chart.svg.contains(">Global memory</text>"));
    assert!(chart.svg.contains(">Shared memory</text>"));
    assert!(
        chart.svg.contains(&hex(palette::series_color(0)))
            && chart.svg.contains(&hex(palette::series_color(1))),
        "palette colours"
    );
    assert_eq!(chart.notes, vec!["1 failed point (not drawn).".to_string()]);
    assert!(
        chart.svg.contains(">1 failed point (not drawn).</text>"),
        "note in the legend"
    );
    assert!(chart.svg.contains("aria-label=\"synthetic line\""));
}

#[test]
fn log_axis_spans_six_decades() {
    let data = Synthetic {
        x: numeric_x(false),
        y: time_axis(true),
        series: vec![Series {
            name: "s".into(),
            points: vec![v(1.0, 1e-3), v(2.0, 1.0), v(3.0, 1e3)],
        }],
    };
    let svg = draw(ChartKind::Line, &data, "log").unwrap().unwrap().svg;
    assert!(svg.contains(">0.001</text>"), "{svg}");
    assert!(svg.contains(">1</text>"));
    assert!(svg.contains(&format!(
        ">1{}000</text>",
        crate::render::format::THOUSANDS_SEP
    )));
    assert_eq!(data_lines(&svg), 1);
}

#[test]
fn categorical_line_chart() {
    let data = Synthetic {
        x: XAxis {
            label: "BLOCK".into(),
            scale: XScale::Categorical(vec!["8x8".into(), "16x16".into(), "32x32".into()]),
        },
        y: time_axis(false),
        series: vec![Series {
            name: "s".into(),
            points: vec![v(0.0, 3.0), missing(1.0), v(2.0, 1.0)],
        }],
    };
    let chart = draw(ChartKind::Line, &data, "cat").unwrap().unwrap();
    assert!(chart.svg.contains(">16x16</text>"));
    assert_eq!(
        data_lines(&chart.svg),
        0,
        "the missing point breaks the only line"
    );
    assert_eq!(in_plot(&chart.svg, "circle").len(), 2);
    assert_eq!(
        chart.notes,
        vec!["1 missing point (not drawn).".to_string()]
    );
}

#[test]
fn grouped_bars_one_rect_per_value_plus_legend() {
    let data = Synthetic {
        x: numeric_x(false),
        y: ValueAxis {
            label: "bandwidth (GB/s)".into(),
            unit: Unit::GigabytesPerSec,
            log: false,
            better: Unit::GigabytesPerSec.better(),
        },
        series: vec![
            Series {
                name: "a".into(),
                points: vec![v(1.0, 10.0), v(2.0, 20.0), v(4.0, 30.0)],
            },
            Series {
                name: "b".into(),
                points: vec![v(1.0, 12.0), failed(2.0), v(4.0, 33.0)],
            },
        ],
    };
    let chart = draw(ChartKind::Bar, &data, "bars").unwrap().unwrap();
    assert_theme_neutral(&chart.svg);
    // 5 bars + 2 legend swatches + series b's square marker in its 2 bars and its swatch
    assert_eq!(count(&chart.svg, "<rect"), 10);
    assert!(chart.svg.contains(">✗</text>"), "failed bar marked");
    assert!(
        chart.svg.contains(">4</text>"),
        "numeric x shown as categories"
    );
}

#[test]
fn heatmap_prints_values_and_outlines_best() {
    let data = Synthetic {
        x: XAxis {
            label: "BX".into(),
            scale: XScale::Categorical(vec!["8".into(), "16".into(), "32".into()]),
        },
        y: time_axis(false),
        series: vec![
            Series {
                name: "BY = 8".into(),
                points: vec![v(0.0, 4.0), v(1.0, 2.5), v(2.0, 3.0)],
            },
            Series {
                name: "BY = 16".into(),
                points: vec![v(0.0, 1.25), missing(1.0), failed(2.0)],
            },
        ],
    };
    let chart = draw(ChartKind::Heatmap, &data, "heat").unwrap().unwrap();
    assert_theme_neutral(&chart.svg);
    // 4 value cells + 2 legend swatches
    assert_eq!(count(&chart.svg, "<rect"), 6);
    for text in [
        ">4.00</text>",
        ">2.50</text>",
        ">3.00</text>",
        ">1.25</text>",
        ">—</text>",
        ">✗ failed</text>",
    ] {
        assert!(chart.svg.contains(text), "{text}");
    }
    assert!(chart.svg.contains(">BY = 16</text>"));
    assert!(chart.svg.contains("best 1.25 ms (outlined)"));
    assert_eq!(
        count(&chart.svg, "stroke=\"currentColor\" stroke-width=\"3\""),
        1,
        "best cell outlined"
    );
}

/// Regression: heat-map cells had no tooltip (samples, spread, marks) while line and bar points did.
#[test]
fn heatmap_cells_carry_their_tooltips_and_flagged_ones_a_ring() {
    let tipped = |x: f64, value: f64, text: &str, flagged: bool| ChartPoint {
        x,
        value: PointValue::Value(value),
        tip: Some(Tip {
            text: text.into(),
            flagged,
        }),
    };
    let data = Synthetic {
        x: XAxis {
            label: "BX".into(),
            scale: XScale::Categorical(vec!["8".into(), "16".into()]),
        },
        y: time_axis(false),
        series: vec![Series {
            name: "BY = 8".into(),
            points: vec![
                tipped(0.0, 4.0, "median of 37 samples", false),
                tipped(
                    1.0,
                    2.5,
                    "median of 1000 samples · c stopped at the sample cap",
                    true,
                ),
            ],
        }],
    };
    let chart = draw(ChartKind::Heatmap, &data, "heat").unwrap().unwrap();
    assert_eq!(
        count(&chart.svg, "<rect class=\"gpulab-tip\""),
        2,
        "{}",
        chart.svg
    );
    assert!(chart.svg.contains(" data-tip=\"median of 37 samples\" />"));
    assert!(
        chart
            .svg
            .contains(" data-tip=\"median of 1000 samples · c stopped at the sample cap\" />")
    );
    assert_eq!(count(&chart.svg, "<rect class=\"gpulab-tip-flag\""), 1);
    // Each target covers its cell: a positive size, inside the picture.
    let sizes: Vec<i32> = chart
        .svg
        .match_indices("class=\"gpulab-tip\" x=\"")
        .map(|(i, _)| {
            let rest = &chart.svg[i..];
            let w = rest.split("width=\"").nth(1).unwrap();
            w[..w.find('"').unwrap()].parse().unwrap()
        })
        .collect();
    assert!(sizes.iter().all(|&w| w > 20), "{sizes:?}");
}

#[test]
fn empty_or_undrawable_data_gives_none() {
    let empty = Synthetic {
        x: numeric_x(false),
        y: time_axis(false),
        series: Vec::new(),
    };
    for kind in [ChartKind::Line, ChartKind::Bar, ChartKind::Heatmap] {
        assert!(draw(kind, &empty, "e").unwrap().is_none());
    }
    let all_failed = Synthetic {
        x: numeric_x(false),
        y: time_axis(false),
        series: vec![Series {
            name: "s".into(),
            points: vec![failed(1.0), missing(2.0)],
        }],
    };
    assert!(draw(ChartKind::Line, &all_failed, "f").unwrap().is_none());
    let non_positive = Synthetic {
        x: numeric_x(true),
        y: time_axis(true),
        series: vec![Series {
            name: "s".into(),
            points: vec![v(1.0, 0.0), v(2.0, -1.0)],
        }],
    };
    assert!(draw(ChartKind::Line, &non_positive, "n").unwrap().is_none());
    let single = Synthetic {
        x: numeric_x(false),
        y: time_axis(false),
        series: vec![Series {
            name: "s".into(),
            points: vec![v(5.0, 2.0)],
        }],
    };
    let svg = draw(ChartKind::Line, &single, "one").unwrap().unwrap().svg;
    assert_eq!(in_plot(&svg, "circle").len(), 1);
}

#[test]
fn drawing_is_deterministic() {
    let a = draw(ChartKind::Line, &line_data(), "d").unwrap();
    let b = draw(ChartKind::Line, &line_data(), "d").unwrap();
    assert_eq!(a, b);
}

/// A palette colour as plotters writes it into the SVG (`#4E79A7`).
fn hex(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// Fig. 6 of widuch2010 said "3 failed points (marked ✗)" where the points had been skipped by
/// the time budget: a skip is not a failure, and a bar chart drew ✗ for it.
#[test]
fn skipped_points_are_not_called_failed() {
    let data = Synthetic {
        x: XAxis {
            label: "variant".into(),
            scale: XScale::Categorical(vec!["a".into(), "b".into()]),
        },
        y: time_axis(false),
        series: vec![Series {
            name: "N = 1600".into(),
            points: vec![
                v(0.0, 2.0),
                ChartPoint {
                    x: 1.0,
                    value: PointValue::Skipped,
                    tip: None,
                },
            ],
        }],
    };
    let chart = draw(ChartKind::Bar, &data, "skips").unwrap().unwrap();
    assert_eq!(
        chart.notes,
        vec!["1 skipped point (not drawn).".to_string()]
    );
    assert_eq!(count(&chart.svg, ">✗<"), 0, "no failure mark for a skip");
}

#[test]
fn series_with_equal_values_stay_distinguishable_without_colour() {
    // Regression: two series with the same values drew one over the other, told apart only by colour.
    let same = vec![v(1024.0, 1.0), v(2048.0, 2.0), v(4096.0, 4.0)];
    let data = Synthetic {
        x: numeric_x(true),
        y: time_axis(false),
        series: (0..3)
            .map(|i| Series {
                name: format!("s{i}"),
                points: same.clone(),
            })
            .collect(),
    };
    let svg = draw(ChartKind::Line, &data, "equal").unwrap().unwrap().svg;
    // Three marker shapes: circles, squares, triangles (polygons).
    assert_eq!(in_plot(&svg, "circle").len(), 3);
    assert_eq!(
        in_plot(&svg, "rect x")
            .iter()
            .filter(|r| r.contains(&hex(palette::series_color(1))))
            .count(),
        3
    );
    assert_eq!(
        in_plot(&svg, "polygon")
            .iter()
            .filter(|p| p.contains(&hex(palette::series_color(2))))
            .count(),
        3,
        "triangles"
    );
    // Solid, dashed and dotted lines.
    assert_eq!(lines_of(&svg, 0), 1);
    assert_eq!(lines_of(&svg, 1), 1);
    assert_eq!(lines_of(&svg, 2), 1);
    assert_eq!(
        count(&svg, "stroke-dasharray=\"8 4\""),
        2,
        "line and legend"
    );
    assert_eq!(
        count(&svg, "stroke-dasharray=\"2 4\""),
        2,
        "line and legend"
    );
}

#[test]
fn power_of_two_axis_labels_do_not_collide() {
    // Regression: on a 2^20 … 2^28 axis "134 217 728" and "268 435 456" ran into each other.
    let data = Synthetic {
        x: numeric_x(true),
        y: time_axis(false),
        series: vec![Series {
            name: "s".into(),
            points: (20..=28).map(|e| v(2f64.powi(e), e as f64)).collect(),
        }],
    };
    let svg = draw(ChartKind::Line, &data, "pow2").unwrap().unwrap().svg;
    assert!(
        svg.contains(">128\u{a0}Mi</text>") || svg.contains(">256\u{a0}Mi</text>"),
        "{svg}"
    );
    assert!(!svg.contains("134\u{202f}217\u{202f}728"), "{svg}");
    assert!(svg.contains(">1\u{a0}Mi</text>"), "{svg}");
}
