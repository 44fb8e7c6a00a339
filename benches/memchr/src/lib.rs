//! The functions `rigor bench` and criterion measure in the memchr study: thin wrappers over
//! memchr 2's searches, never inlined so that each harness calls the very same machine code, and
//! their inputs. With the feature `slow`, [`find`] first scans 16 bytes naively (the known
//! slowdown: large at 64 bytes, small at 64 KiB); nothing else differs between the builds.

/// The byte [`find`] looks for: at the very end of [`haystack`], so the whole input is scanned.
pub const NEEDLE: u8 = b'z';

/// The three bytes of [`find3`] (only the first occurs, at the end).
pub const NEEDLES3: [u8; 3] = [b'z', b'Z', b'0'];

/// The substring of [`find_sub`], at the end of [`sub_haystack`].
pub const SUBSTRING: &[u8] = b"needle!";

/// The index of the first `needle` in `hay` (memchr::memchr); with the feature `slow`, the
/// first 16 bytes are scanned one by one first.
#[inline(never)]
pub fn find(needle: u8, hay: &[u8]) -> Option<usize> {
    #[cfg(feature = "slow")]
    {
        let head = hay.len().min(16);
        for (i, &b) in hay[..head].iter().enumerate() {
            if std::hint::black_box(b) == needle {
                return Some(i);
            }
        }
        memchr::memchr(needle, &hay[head..]).map(|i| i + head)
    }
    #[cfg(not(feature = "slow"))]
    memchr::memchr(needle, hay)
}

/// The index of the last `needle` in `hay` (memchr::memrchr).
#[inline(never)]
pub fn rfind(needle: u8, hay: &[u8]) -> Option<usize> {
    memchr::memrchr(needle, hay)
}

/// The index of the first of three bytes in `hay` (memchr::memchr3).
#[inline(never)]
pub fn find3(needles: [u8; 3], hay: &[u8]) -> Option<usize> {
    memchr::memchr3(needles[0], needles[1], needles[2], hay)
}

/// The index of the first `needle` substring in `hay` (memchr::memmem::find).
#[inline(never)]
pub fn find_sub(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// The length of each line of `text` (through [`find`] for every line: it allocates a growing
/// vector, and the slowdown is paid once per line).
#[inline(never)]
pub fn line_lengths(text: &[u8]) -> Vec<usize> {
    let mut lengths = Vec::new();
    let mut rest = text;
    while let Some(i) = find(b'\n', rest) {
        lengths.push(i);
        rest = &rest[i + 1..];
    }
    lengths
}

/// `n` bytes of lowercase letters other than `z` (a fixed xorshift sequence), ending with
/// [`NEEDLE`].
pub fn haystack(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut hay: Vec<u8> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b'a' + (x % 25) as u8
        })
        .collect();
    if let Some(last) = hay.last_mut() {
        *last = NEEDLE;
    }
    hay
}

/// [`haystack`] with the needle moved to the start (for [`rfind`], which scans from the end).
pub fn reverse_haystack(n: usize) -> Vec<u8> {
    let mut hay = haystack(n);
    hay.rotate_right(1);
    hay
}

/// [`haystack`] ending with [`SUBSTRING`].
pub fn sub_haystack(n: usize) -> Vec<u8> {
    let mut hay = haystack(n);
    let start = n.saturating_sub(SUBSTRING.len());
    hay[start..].copy_from_slice(&SUBSTRING[..n - start]);
    hay
}

/// `n` bytes of 64-byte lines (63 letters and a newline).
pub fn text(n: usize) -> Vec<u8> {
    let mut hay = haystack(n);
    for (i, b) in hay.iter_mut().enumerate() {
        if i % 64 == 63 {
            *b = b'\n';
        } else if *b == NEEDLE {
            *b = b'y';
        }
    }
    hay
}

/// The sizes of `memchr/N`.
pub const MEMCHR_SIZES: [usize; 3] = [64, 4096, 65536];

/// The size of the other benchmarks.
pub const SIZE: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_needles_are_where_the_benchmarks_expect_them() {
        for n in MEMCHR_SIZES {
            assert_eq!(find(NEEDLE, &haystack(n)), Some(n - 1));
        }
        assert_eq!(rfind(NEEDLE, &reverse_haystack(SIZE)), Some(0));
        assert_eq!(find3(NEEDLES3, &haystack(SIZE)), Some(SIZE - 1));
        assert_eq!(
            find_sub(&sub_haystack(SIZE), SUBSTRING),
            Some(SIZE - SUBSTRING.len())
        );
        assert_eq!(line_lengths(&text(SIZE)), vec![63; SIZE / 64]);
    }
}
