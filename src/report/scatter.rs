//! Predicted against actual queue times, as Downey's Figure 5: a log-log scatter with the
//! identity line and, per column of predictions, the mean and the median of the outcomes
//! (all in log space, as his statistics are).

use std::path::Path;

use plotters::prelude::*;

use std::io::Write;

use crate::atomic::write_atomically;
use crate::error::{Error, Result};

/// Columns of the per-column mean and median lines.
const COLUMNS: usize = 20;
/// Columns with fewer points get no mean or median.
const MIN_PER_COLUMN: usize = 5;

/// A column's centre and the mean and median of its outcomes (log10).
pub type ColumnLine = (f64, f64, f64);

/// Per column of log10 prediction: (column centre, mean, median) of log10 outcome.
pub fn column_lines(points: &[(f64, f64)]) -> Vec<ColumnLine> {
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.0), hi.max(p.0))
        });
    if points.is_empty() || hi <= lo {
        return Vec::new();
    }
    let width = (hi - lo) / COLUMNS as f64;
    let mut columns: Vec<Vec<f64>> = vec![Vec::new(); COLUMNS];
    for &(x, y) in points {
        let c = (((x - lo) / width) as usize).min(COLUMNS - 1);
        columns[c].push(y);
    }
    columns
        .iter_mut()
        .enumerate()
        .filter(|(_, ys)| ys.len() >= MIN_PER_COLUMN)
        .map(|(c, ys)| {
            let mean = ys.iter().sum::<f64>() / ys.len() as f64;
            let median = crate::metrics::median(ys);
            (lo + (c as f64 + 0.5) * width, mean, median)
        })
        .collect()
}

/// Writes the scatter of (prediction, outcome) pairs in seconds to `path` (SVG); times below
/// 1 s are drawn at 1 s.
pub fn write_prediction_scatter(path: &Path, pairs: &[(f64, f64)], title: &str) -> Result<()> {
    let points: Vec<(f64, f64)> = pairs
        .iter()
        .map(|&(p, o)| (p.max(1.0).log10(), o.max(1.0).log10()))
        .collect();
    let top = points.iter().fold(1.0f64, |m, p| m.max(p.0).max(p.1)).ceil();
    let lines = column_lines(&points);
    let failed = |e: String| Error::Output {
        path: path.to_path_buf(),
        error: std::io::Error::other(e),
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 800)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| failed(e.to_string()))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(20)
            .x_label_area_size(45)
            .y_label_area_size(55)
            .build_cartesian_2d(0.0..top, 0.0..top)
            .map_err(|e| failed(e.to_string()))?;
        chart
            .configure_mesh()
            .x_desc("predicted queue time, log10 seconds")
            .y_desc("actual queue time, log10 seconds")
            .draw()
            .map_err(|e| failed(e.to_string()))?;
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&(x, y)| Circle::new((x, y), 1, RGBColor(31, 119, 180).mix(0.3).filled())),
            )
            .map_err(|e| failed(e.to_string()))?;
        chart
            .draw_series(LineSeries::new([(0.0, 0.0), (top, top)], BLACK.stroke_width(1)))
            .map_err(|e| failed(e.to_string()))?
            .label("identity")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK));
        // The per-column mean (red) and median (green) lines.
        let columns = [
            (RGBColor(214, 39, 40), "mean of each column", false),
            (RGBColor(44, 160, 44), "median of each column", true),
        ];
        for (color, label, median) in columns {
            chart
                .draw_series(LineSeries::new(
                    lines.iter().map(|l| (l.0, if median { l.2 } else { l.1 })),
                    color.stroke_width(2),
                ))
                .map_err(|e| failed(e.to_string()))?
                .label(label)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| failed(e.to_string()))?;
        root.present().map_err(|e| failed(e.to_string()))?;
    }
    write_atomically(path, |w| w.write_all(svg.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_average_their_points() {
        // Two columns' worth of points: x near 0 with y 1, 2, 3, 4, 10 and x near 1 with y 5.
        let mut points: Vec<(f64, f64)> = [1.0, 2.0, 3.0, 4.0, 10.0].iter().map(|&y| (0.0, y)).collect();
        points.extend((0..5).map(|_| (1.0, 5.0)));
        let lines = column_lines(&points);
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[0].1, lines[0].2), (4.0, 3.0));
        assert_eq!((lines[1].1, lines[1].2), (5.0, 5.0));
    }
}
