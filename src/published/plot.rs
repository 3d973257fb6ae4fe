//! SVG plots of a comparison: ex/s against workers (published and measured,
//! per producer), and the wait/work split of every configuration.

use std::path::Path;

use plotters::prelude::*;

use super::tables::Table;
use crate::bench::{BenchRun, Column};
use crate::error::{Error, Result};

const COLORS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
];

/// A line on the ex/s panel: label, points, colour, measured (thick) or not.
type Series = (String, Vec<(f64, f64)>, RGBColor, bool);
/// A producer's bars: name, colour, and per worker count the published and
/// (when run) measured split.
type BarGroup = (String, RGBColor, Vec<(usize, Split, Option<Split>)>);

/// One configuration's wait and work, published or measured.
struct Split {
    wait: f64,
    work: f64,
}

/// Renders the plots to an SVG string.
pub fn svg(tables: &[Table], run: &BenchRun) -> Result<String> {
    let mut out = String::new();
    draw(&mut out, tables, run).map_err(|e| Error::Other(format!("cannot draw the plot: {e}")))?;
    Ok(out)
}

/// Writes the plots to `path` (never over an existing file).
pub fn write(path: &Path, tables: &[Table], run: &BenchRun) -> Result<()> {
    crate::atomic::write_new(path, svg(tables, run)?.as_bytes())
}

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

fn draw(out: &mut String, tables: &[Table], run: &BenchRun) -> DrawResult {
    let root = SVGBackend::with_string(out, (1200, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(560);

    // Panel 1: ex/s against workers.
    let mut series: Vec<Series> = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let (Some(w), Some(ex)) = (t.column(&Column::Workers), t.column(&Column::ExPerS)) else {
            continue;
        };
        let producer = t.header.producer;
        let pts = t.rows.iter().map(|r| (r[w].value, r[ex].value)).collect();
        series.push((format!("{producer} (published)"), pts, color, false));
        let measured: Vec<(f64, f64)> = run
            .results
            .iter()
            .filter(|r| r.producer == producer)
            .map(|r| (r.workers as f64, r.summary.ex_per_s))
            .collect();
        if !measured.is_empty() {
            series.push((format!("{producer} (measured)"), measured, color, true));
        }
    }
    let max_w = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    let max_ex = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.1))
        .fold(1.0, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(&left)
        .caption("ex/s against workers", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..max_w, 0.0..max_ex)?;
    chart
        .configure_mesh()
        .x_desc("workers")
        .y_desc("examples per second")
        .draw()?;
    for (label, pts, color, measured) in series {
        let style = if measured {
            color.stroke_width(3)
        } else {
            color.stroke_width(1)
        };
        chart
            .draw_series(LineSeries::new(pts.clone(), style))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;

    // Panel 2: per producer and worker count, the published step (left,
    // pale) beside the measured one (right, solid); wait at the bottom, work
    // stacked on top in a lighter shade.
    let mut groups: Vec<BarGroup> = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        let (Some(w), Some(wm), Some(wk)) = (
            t.column(&Column::Workers),
            t.column(&Column::WaitMean),
            t.column(&Column::Work),
        ) else {
            continue;
        };
        let mut bars = Vec::new();
        for r in &t.rows {
            let workers = r[w].value as usize;
            let published = Split {
                wait: r[wm].value,
                work: r[wk].value,
            };
            let measured = run.row(t.header.producer, workers).map(|m| Split {
                wait: m.wait_mean_ms,
                work: m.work_ms,
            });
            bars.push((workers, published, measured));
        }
        groups.push((
            t.header.producer.to_string(),
            COLORS[i % COLORS.len()],
            bars,
        ));
    }
    let slots: usize = groups.iter().map(|g| g.2.len() + 1).sum::<usize>().max(1);
    let max_step = groups
        .iter()
        .flat_map(|g| g.2.iter())
        .flat_map(|(_, p, m)| [p.wait + p.work, m.as_ref().map_or(0.0, |m| m.wait + m.work)])
        .fold(1.0, f64::max)
        * 1.15;
    let below = max_step * 0.06;
    let mut chart = ChartBuilder::on(&right)
        .caption(
            "ms per step: wait (dark) + work (light); published | measured",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(10)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..slots as f64, -below..max_step)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("ms per step")
        .draw()?;
    let label_style = ("sans-serif", 12).into_font();
    let mut slot = 0.5;
    for (producer, color, bars) in &groups {
        chart.draw_series([Text::new(
            producer.clone(),
            (slot, max_step * 0.97),
            label_style.clone(),
        )])?;
        for (workers, published, measured) in bars {
            let pale = color.mix(0.35);
            let mut rects = vec![
                Rectangle::new([(slot, 0.0), (slot + 0.4, published.wait)], pale.filled()),
                Rectangle::new(
                    [
                        (slot, published.wait),
                        (slot + 0.4, published.wait + published.work),
                    ],
                    color.mix(0.15).filled(),
                ),
            ];
            if let Some(m) = measured {
                rects.push(Rectangle::new(
                    [(slot + 0.42, 0.0), (slot + 0.82, m.wait)],
                    color.filled(),
                ));
                rects.push(Rectangle::new(
                    [(slot + 0.42, m.wait), (slot + 0.82, m.wait + m.work)],
                    color.mix(0.55).filled(),
                ));
            }
            chart.draw_series(rects)?;
            chart.draw_series([Text::new(
                format!("w{workers}"),
                (slot + 0.2, -below * 0.4),
                label_style.clone(),
            )])?;
            slot += 1.0;
        }
        slot += 1.0;
    }
    root.present()?;
    Ok(())
}
