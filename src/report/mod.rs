//! Renderers of plain data: Markdown tables, line plots (SVG or PNG) and scatter plots. They know
//! nothing of sweeps; [`crate::sweep::figures`] decides what a sweep shows.

pub mod batsim;
pub mod gantt;
pub mod markdown;
pub mod plot;
mod raster;
pub mod scatter;
