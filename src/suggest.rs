//! "Did you mean": the known name closest to a misspelt one, for refusals of names and
//! keys (schedulers, predictors, parameters, metrics).

/// The known name nearest to `name` by edits (insertions, deletions, substitutions and
/// swaps of neighbours), if one is near enough to be a slip: at most one edit in a name
/// of three or four letters, two up to eight, three beyond; none for shorter names, where
/// any name is an edit or two away, nor for names over 64 letters. Ties go to the earlier
/// name.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = match name.chars().count() {
        0..=2 => return None,
        3..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    let length = name.chars().count();
    if length > 64 {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    // Names whose lengths differ by more than the limit are farther: not measured.
    for k in known
        .into_iter()
        .filter(|k| k.chars().count().abs_diff(length) <= limit)
    {
        let d = distance(name, k);
        if d > 0 && d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

/// " (did you mean 'x'?)" for the closest known name, or nothing.
pub fn hint<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    phrase(closest(name, known))
}

/// " (did you mean 'x'?)" for a suggestion already found, or nothing.
pub fn phrase(closest: Option<&str>) -> String {
    closest.map_or_else(String::new, |k| format!(" (did you mean '{k}'?)"))
}

/// Edits from `a` to `b`, a swap of neighbours counting as one (optimal string alignment).
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for j in 0..=b.len() {
        d[0][j] = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slips_find_their_name_and_strangers_none() {
        let metrics = ["mean_wait", "mean_bsld", "utilization", "makespan"];
        assert_eq!(closest("mean_wiat", metrics), Some("mean_wait"));
        assert_eq!(closest("mean_bsd", metrics), Some("mean_bsld"));
        assert_eq!(closest("utilisation", metrics), Some("utilization"));
        assert_eq!(closest("throughput", metrics), None);
        assert_eq!(closest("mean_wait", metrics), None, "an exact name is no slip");
        assert_eq!(closest("esay", ["fcfs", "easy", "sjbf"]), Some("easy"));
        assert_eq!(closest("ga", ["fcfs", "easy", "sjbf"]), None);
        assert_eq!(closest("k", ["c"]), None, "one letter is no slip of another");
        assert_eq!(
            hint("conservativ", ["conservative"]),
            " (did you mean 'conservative'?)"
        );
        assert_eq!(hint("x", ["conservative"]), "");
    }
}
