//! PNG from a figure's SVG (resvg), at twice the SVG's size, with the system's fonts.

/// The scale of a PNG against its SVG: 800 x 500 becomes 1600 x 1000 pixels.
const SCALE: f32 = 2.0;

/// Sans-serif families in order of preference.
const SANS_SERIF: [&str; 6] = [
    "DejaVu Sans",
    "Liberation Sans",
    "Arial",
    "Helvetica",
    "Noto Sans",
    "FreeSans",
];

/// Rasterises `svg` to PNG bytes. Text needs a system font for the SVG's family
/// (sans-serif: DejaVu Sans, Liberation Sans, ...); without any the error says so rather
/// than writing a picture without its labels.
pub fn png(svg: &str) -> std::io::Result<Vec<u8>> {
    let mut options = resvg::usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_system_fonts();
    // The SVG asks for the generic sans-serif family, which resvg maps to Arial: take the
    // first of the common sans-serif families this machine has.
    let families: Vec<String> = fonts
        .faces()
        .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
        .collect();
    let Some(sans) = SANS_SERIF
        .iter()
        .find(|f| families.iter().any(|n| n == *f))
        .map(|f| f.to_string())
        .or_else(|| families.first().cloned())
    else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "PNG needs a system font for its text, and none was found (install e.g. \
             fonts-dejavu-core), or write SVG only",
        ));
    };
    fonts.set_sans_serif_family(sans);
    let tree = resvg::usvg::Tree::from_str(svg, &options)
        .map_err(|e| std::io::Error::other(format!("SVG not rendered: {e}")))?;
    let size = tree.size().to_int_size().scale_by(SCALE).ok_or_else(too_large)?;
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).ok_or_else(too_large)?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(SCALE, SCALE),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| std::io::Error::other(format!("PNG not encoded: {e}")))
}

fn too_large() -> std::io::Error {
    std::io::Error::other("figure too large for PNG")
}
