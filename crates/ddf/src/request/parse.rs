//! The words every front end reads the same way: sizes (`64MiB`),
//! durations (`1h 30m`) and family names (slug or display name).

use crate::Family;

/// A size such as `64MiB`, `1GB` or `1048576`, in bytes (at least 1).
///
/// Decimal units (`kB`, `MB`, `GB`, …, and `K`, `M`, `G`) are powers of
/// 1000, binary ones (`KiB`, `MiB`, `GiB`, …) powers of 1024; case is
/// ignored.
///
/// ```
/// use ddf::request::parse_size;
///
/// assert_eq!(parse_size("64MiB"), Ok(64 << 20));
/// assert_eq!(parse_size("1 GB"), Ok(1_000_000_000));
/// assert!(parse_size("0").is_err() && parse_size("lots").is_err());
/// ```
pub fn parse_size(text: &str) -> Result<u64, String> {
    let b: bytesize::ByteSize = text
        .trim()
        .parse()
        .map_err(|e| format!("{text:?} is not a size such as 64MiB or 1GB ({e})"))?;
    if b.as_u64() == 0 {
        return Err(format!("{text:?} is not a size of at least 1 byte"));
    }
    Ok(b.as_u64())
}

/// A duration such as `90s`, `15min`, `1h 30m` or `250ms`, in whole
/// milliseconds (at least 1).
///
/// ```
/// use ddf::request::parse_duration_ms;
///
/// assert_eq!(parse_duration_ms("1h"), Ok(3_600_000));
/// assert_eq!(parse_duration_ms("1m 30s"), Ok(90_000));
/// assert!(parse_duration_ms("0s").is_err() && parse_duration_ms("soon").is_err());
/// ```
pub fn parse_duration_ms(text: &str) -> Result<u64, String> {
    let d = humantime::parse_duration(text.trim())
        .map_err(|e| format!("{text:?} is not a duration such as 90s, 15min or 1h 30m ({e})"))?;
    let ms = u64::try_from(d.as_millis()).map_err(|_| format!("{text:?} is too long"))?;
    if ms == 0 {
        return Err(format!("{text:?} is shorter than 1ms"));
    }
    Ok(ms)
}

/// Lower-case letters and digits only: `Sliding-Bloom`, `sliding bloom`
/// and `SLIDING_BLOOM` compare equal.
fn squash(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

impl Family {
    /// The family `name` names: a slug of the [registry](crate::registry)
    /// or a display name, case and separators ignored, so `sliding`,
    /// `SLIDING-BLOOM` and `Sliding Bloom` all name the sliding Bloom filter.
    ///
    /// ```
    /// use ddf::Family;
    ///
    /// assert_eq!(Family::named("Partitioned Bloom").map(Family::slug), Some("bloom"));
    /// assert_eq!(Family::named("compact_SHF").map(Family::slug), Some("compact-shf"));
    /// assert_eq!(Family::named("slid"), None);
    /// ```
    pub fn named(name: &str) -> Option<Family> {
        let wanted = squash(name);
        if wanted.is_empty() {
            return None;
        }
        Family::ALL
            .iter()
            .copied()
            .find(|f| squash(f.slug()) == wanted || squash(f.name()) == wanted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_names_are_slugs_or_names_case_and_separators_ignored() {
        for &f in Family::ALL {
            assert_eq!(Family::named(f.slug()), Some(f));
            assert_eq!(Family::named(f.name()), Some(f));
            assert_eq!(Family::named(&f.slug().to_uppercase()), Some(f));
        }
        for bad in ["--", "", "apb", "slid"] {
            assert_eq!(Family::named(bad), None, "{bad}");
        }
    }

    #[test]
    fn sizes_and_durations() {
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("1kb"), Ok(1000));
        assert_eq!(parse_size("12"), Ok(12));
        assert_eq!(parse_duration_ms("250ms"), Ok(250));
        assert_eq!(parse_duration_ms("24h"), Ok(86_400_000));
        assert!(parse_duration_ms("1us").is_err());
    }
}
