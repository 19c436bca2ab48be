//! Renderers of plain data: Markdown tables, SVG line plots and scatter plots. They know
//! nothing of sweeps; [`crate::sweep::figures`] decides what a sweep shows.

pub mod markdown;
pub mod plot;
pub mod scatter;
