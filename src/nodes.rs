//! [`Nodes`]: an exact count of any size a perft can reach.
//!
//! A count passes 2^64 long before the depths this tool accepts run out: two bare kings have
//! 61,018,799,030,976,426,896 leaves at depth 24 (found in seconds through the table), the start
//! position passes 2^64 at depth 14. Every position the parser accepts has fewer than
//! `MAX_MOVES` = 1104 legal moves, so a count of depth `d` is below
//! 1104^d: below 2^64 up to depth 6 (which is why the hot code below that depth counts in
//! `u64`), below 2^647 at the deepest depth, 64. `Nodes` holds 768 bits: every count, and the
//! sum of up to 2^121 of them (a suite's total), exactly.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Mul};
use std::str::FromStr;

/// 64-bit words of a [`Nodes`], least significant first.
const WORDS: usize = 12;

/// An exact, unsigned node count (768 bits). Adds and multiplies without loss for every count a
/// perft of depth 64 or less can give; an arithmetic overflow beyond that panics rather than
/// wraps.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Nodes([u64; WORDS]);

/// A count too large for [`Nodes`] or not a decimal number: the reason, for the caller to name
/// the field it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseNodesError {
    /// Empty, or a character other than the digits 0-9.
    NotANumber,
    /// More than 768 bits.
    TooLarge,
}

impl fmt::Display for ParseNodesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseNodesError::NotANumber => "not a non-negative integer",
            ParseNodesError::TooLarge => "too large (the largest count is 2^768 - 1)",
        })
    }
}

impl std::error::Error for ParseNodesError {}

impl Nodes {
    /// No nodes.
    pub const ZERO: Nodes = Nodes([0; WORDS]);
    /// One node (depth 0).
    pub const ONE: Nodes = {
        let mut w = [0; WORDS];
        w[0] = 1;
        Nodes(w)
    };

    /// The count as a `u64`, if it fits.
    pub fn to_u64(self) -> Option<u64> {
        self.0[1..].iter().all(|&w| w == 0).then_some(self.0[0])
    }

    /// The count as a `u64`, or `u64::MAX` past it (for progress bars, never for a count shown).
    pub fn saturating_u64(self) -> u64 {
        self.to_u64().unwrap_or(u64::MAX)
    }

    /// The count as a `u128`, if it fits.
    pub fn to_u128(self) -> Option<u128> {
        self.0[2..]
            .iter()
            .all(|&w| w == 0)
            .then_some(u128::from(self.0[0]) | u128::from(self.0[1]) << 64)
    }

    /// The count as the nearest `f64` (for rates and estimates, never for a count shown).
    pub fn to_f64(self) -> f64 {
        self.0
            .iter()
            .rev()
            .fold(0.0, |acc, &w| acc * 18_446_744_073_709_551_616.0 + w as f64)
    }

    /// Whether the count is one a perft can give: below 1104^64 < 2^647 (the most legal moves of
    /// any position the parser accepts, to the deepest depth). A count read from a file that
    /// is not is damaged or forged, and sums of such counts could pass what `Nodes` holds.
    #[cfg(any(feature = "cli", test))]
    pub(crate) fn is_perft_sized(self) -> bool {
        const PERFT_BITS: usize = 647;
        self.0[PERFT_BITS / 64 + 1..].iter().all(|&w| w == 0)
            && self.0[PERFT_BITS / 64] >> (PERFT_BITS % 64) == 0
    }

    /// The count's `N` least significant 64-bit words, if it has no others (a table keeps
    /// counts of deep subtrees this way, in as many words as they need).
    pub(crate) fn to_words<const N: usize>(self) -> Option<[u64; N]> {
        (N >= WORDS || self.0[N..].iter().all(|&w| w == 0))
            .then(|| std::array::from_fn(|i| self.0.get(i).copied().unwrap_or(0)))
    }

    /// The count whose least significant words are `words` (the inverse of
    /// [`Nodes::to_words`]).
    pub(crate) fn from_words<const N: usize>(words: [u64; N]) -> Nodes {
        let mut w = [0; WORDS];
        for (o, i) in w.iter_mut().zip(words) {
            *o = i;
        }
        Nodes(w)
    }

    /// Whether the count is zero.
    pub fn is_zero(self) -> bool {
        self == Nodes::ZERO
    }

    /// `self + other`, or `None` past 768 bits.
    pub(crate) fn checked_add(self, other: Nodes) -> Option<Nodes> {
        let mut out = [0; WORDS];
        let mut carry = false;
        for (i, o) in out.iter_mut().enumerate() {
            let (s, c1) = self.0[i].overflowing_add(other.0[i]);
            let (s, c2) = s.overflowing_add(u64::from(carry));
            *o = s;
            carry = c1 || c2;
        }
        (!carry).then_some(Nodes(out))
    }

    /// `self * m`, or `None` past 768 bits.
    pub(crate) fn checked_mul_u64(self, m: u64) -> Option<Nodes> {
        let mut out = [0; WORDS];
        let mut carry = 0u64;
        for (i, o) in out.iter_mut().enumerate() {
            let p = u128::from(self.0[i]) * u128::from(m) + u128::from(carry);
            *o = p as u64;
            carry = (p >> 64) as u64;
        }
        (carry == 0).then_some(Nodes(out))
    }

    /// `self * other`, or `None` past 768 bits.
    pub(crate) fn checked_mul(self, other: Nodes) -> Option<Nodes> {
        let mut acc = Nodes::ZERO;
        for (i, &w) in other.0.iter().enumerate() {
            if w == 0 {
                continue;
            }
            let part = self.checked_mul_u64(w)?;
            // Shift `part` up by `i` words; a word shifted out must be zero.
            if part.0[WORDS - i..].iter().any(|&x| x != 0) {
                return None;
            }
            let mut shifted = [0; WORDS];
            shifted[i..].copy_from_slice(&part.0[..WORDS - i]);
            acc = acc.checked_add(Nodes(shifted))?;
        }
        Some(acc)
    }

    /// Divides in place by `d` (non-zero), returning the remainder.
    fn div_rem_u64(&mut self, d: u64) -> u64 {
        let mut rem = 0u128;
        for w in self.0.iter_mut().rev() {
            let cur = rem << 64 | u128::from(*w);
            *w = (cur / u128::from(d)) as u64;
            rem = cur % u128::from(d);
        }
        rem as u64
    }
}

impl From<u64> for Nodes {
    fn from(n: u64) -> Nodes {
        let mut w = [0; WORDS];
        w[0] = n;
        Nodes(w)
    }
}

impl From<u128> for Nodes {
    fn from(n: u128) -> Nodes {
        let mut w = [0; WORDS];
        w[0] = n as u64;
        w[1] = (n >> 64) as u64;
        Nodes(w)
    }
}

impl From<u32> for Nodes {
    fn from(n: u32) -> Nodes {
        Nodes::from(u64::from(n))
    }
}

impl PartialEq<u64> for Nodes {
    fn eq(&self, other: &u64) -> bool {
        self.to_u64() == Some(*other)
    }
}

impl PartialEq<Nodes> for u64 {
    fn eq(&self, other: &Nodes) -> bool {
        other == self
    }
}

impl Ord for Nodes {
    fn cmp(&self, other: &Nodes) -> std::cmp::Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

impl PartialOrd for Nodes {
    fn partial_cmp(&self, other: &Nodes) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Add for Nodes {
    type Output = Nodes;
    #[inline]
    fn add(self, other: Nodes) -> Nodes {
        self.checked_add(other)
            .expect("a sum of node counts past 2^768")
    }
}

impl AddAssign for Nodes {
    #[inline]
    fn add_assign(&mut self, other: Nodes) {
        *self = *self + other;
    }
}

impl AddAssign<u64> for Nodes {
    #[inline]
    fn add_assign(&mut self, other: u64) {
        *self = *self + Nodes::from(other);
    }
}

impl Mul<u64> for Nodes {
    type Output = Nodes;
    fn mul(self, m: u64) -> Nodes {
        self.checked_mul_u64(m)
            .expect("a product of node counts past 2^768")
    }
}

impl Mul for Nodes {
    type Output = Nodes;
    fn mul(self, m: Nodes) -> Nodes {
        self.checked_mul(m)
            .expect("a product of node counts past 2^768")
    }
}

impl Sum for Nodes {
    fn sum<I: Iterator<Item = Nodes>>(iter: I) -> Nodes {
        iter.fold(Nodes::ZERO, |a, b| a + b)
    }
}

impl<'a> Sum<&'a Nodes> for Nodes {
    fn sum<I: Iterator<Item = &'a Nodes>>(iter: I) -> Nodes {
        iter.fold(Nodes::ZERO, |a, b| a + *b)
    }
}

/// 10^19, the largest power of ten in a `u64`.
const TEN19: u64 = 10_000_000_000_000_000_000;

impl fmt::Display for Nodes {
    /// Decimal, honouring width and alignment (`{:>15}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.to_u64() {
            return f.pad_integral(true, "", &n.to_string());
        }
        let mut n = *self;
        let mut chunks = Vec::new();
        while !n.is_zero() {
            chunks.push(n.div_rem_u64(TEN19));
        }
        let mut s = String::new();
        for (i, c) in chunks.iter().rev().enumerate() {
            if i == 0 {
                s.push_str(&c.to_string());
            } else {
                s.push_str(&format!("{c:019}"));
            }
        }
        f.pad_integral(true, "", &s)
    }
}

impl fmt::Debug for Nodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Nodes {
    type Err = ParseNodesError;

    /// Decimal digits only (no sign, no separators, no spaces).
    fn from_str(s: &str) -> Result<Nodes, ParseNodesError> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseNodesError::NotANumber);
        }
        let mut n = Nodes::ZERO;
        for chunk in s.as_bytes().chunks(18) {
            let value: u64 = std::str::from_utf8(chunk)
                .ok()
                .and_then(|c| c.parse().ok())
                .ok_or(ParseNodesError::NotANumber)?;
            n = n
                .checked_mul_u64(10u64.pow(chunk.len() as u32))
                .and_then(|n| n.checked_add(Nodes::from(value)))
                .ok_or(ParseNodesError::TooLarge)?;
        }
        Ok(n)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Nodes {
    /// A JSON number of every digit (serde_json's arbitrary precision), never a float.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.to_u64() {
            Some(n) => s.serialize_u64(n),
            None => match self.to_u128() {
                Some(n) => s.serialize_u128(n),
                None => {
                    let number: serde_json::Number = self
                        .to_string()
                        .parse()
                        .map_err(serde::ser::Error::custom)?;
                    number.serialize(s)
                }
            },
        }
    }
}

/// What a count is added up in: `u64` in the hot code of shallow subtrees, [`Nodes`] above.
pub trait Tally: Copy + Default + PartialEq + AddAssign + Add<Output = Self> + fmt::Debug {
    /// The count as a [`Nodes`].
    fn widen(self) -> Nodes;
}

impl Tally for u64 {
    #[inline(always)]
    fn widen(self) -> Nodes {
        Nodes::from(self)
    }
}

impl Tally for Nodes {
    #[inline(always)]
    fn widen(self) -> Nodes {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::{Nodes, ParseNodesError};

    /// Arithmetic and decimal text against `u128`, which holds the same values exactly.
    #[test]
    fn agrees_with_u128_where_both_hold_the_value() {
        let samples = [
            0u128,
            1,
            9,
            10,
            u64::MAX as u128,
            u64::MAX as u128 + 1,
            10_000_000_000_000_000_000,
            61_018_799_030_976_426_896,
            u128::MAX / 3,
        ];
        for &a in &samples {
            let n = Nodes::from(a);
            assert_eq!(n.to_string(), a.to_string());
            assert_eq!(a.to_string().parse::<Nodes>(), Ok(n));
            assert_eq!(n.to_u128(), Some(a));
            assert_eq!(n.to_u64(), u64::try_from(a).ok());
            for &b in &samples {
                let m = Nodes::from(b);
                if let Some(s) = a.checked_add(b) {
                    assert_eq!(n + m, Nodes::from(s));
                }
                if let Some(p) = a.checked_mul(b) {
                    assert_eq!(n * m, Nodes::from(p));
                }
                assert_eq!(n.cmp(&m), a.cmp(&b));
            }
        }
    }

    /// Past 2^128: 2^64 squared is 2^128, 2^128 written out is the published power of two, and
    /// 3^400 (a 634-bit number) has the length and leading digits Python's integers give it
    /// (191 digits, 7055079108...).
    #[test]
    fn counts_past_2_to_the_128_are_exact() {
        let two64 = Nodes::from(u64::MAX) + Nodes::ONE;
        let two128 = two64 * two64;
        assert_eq!(two128.to_u128(), None);
        assert_eq!(
            two128.to_string(),
            "340282366920938463463374607431768211456"
        );
        assert!(two128 + Nodes::ONE > two128);
        // 3^400 by repeated multiplication, then back from its text.
        let mut p = Nodes::ONE;
        for _ in 0..400 {
            p = p * 3;
        }
        let text = p.to_string();
        assert_eq!(text.len(), 191); // 400 * log10(3) = 190.85
        assert!(text.starts_with("7055079"), "{text}");
        assert_eq!(text.parse::<Nodes>(), Ok(p));
        assert!((p.to_f64() / 3f64.powi(400) - 1.0).abs() < 1e-12);
    }

    /// The bound on counts read from files: every perft's count (1104^64 the largest) is
    /// within it, 2^647 and above is not.
    #[test]
    fn perft_sized_counts_end_below_2_to_the_647() {
        let power = |base: u64, exp: u32| (0..exp).fold(Nodes::ONE, |p, _| p * base);
        // 2^647 - 1: 647 one bits.
        let all_ones = (0..647).fold(Nodes::ZERO, |n, _| n * 2 + Nodes::ONE);
        assert!(Nodes::ZERO.is_perft_sized());
        assert!(power(1104, 64).is_perft_sized());
        assert!(all_ones.is_perft_sized());
        assert!(!(all_ones + Nodes::ONE).is_perft_sized());
        assert_eq!(all_ones + Nodes::ONE, power(2, 647));
        assert!(!power(2, 767).is_perft_sized());
    }

    #[test]
    fn text_that_is_not_a_count_is_refused() {
        assert_eq!("".parse::<Nodes>(), Err(ParseNodesError::NotANumber));
        assert_eq!("-1".parse::<Nodes>(), Err(ParseNodesError::NotANumber));
        assert_eq!("1 2".parse::<Nodes>(), Err(ParseNodesError::NotANumber));
        assert_eq!(
            "1".repeat(233).parse::<Nodes>(),
            Err(ParseNodesError::TooLarge)
        );
        assert_eq!(
            format!("{:>6}|{:<4}|", Nodes::from(42u64), Nodes::ONE),
            "    42|1   |"
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_numbers_keep_every_digit() {
        let big: Nodes = "123456789012345678901234567890123456789012345678901234567890"
            .parse()
            .unwrap();
        assert_eq!(
            serde_json::to_string(&big).unwrap(),
            "123456789012345678901234567890123456789012345678901234567890"
        );
        assert_eq!(serde_json::to_string(&Nodes::from(7u64)).unwrap(), "7");
    }
}
