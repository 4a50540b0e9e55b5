//! Patterns that bind parts of a value (`(v, 1)`, `[a, b]`, `[first, .., last]`,
//! `[head, tail @ ..]`, `&[x, ..]`, `P { x, y: b, .. }`) as tests of the value and reads
//! of its parts by field and index, so that each part's derivative flows through a
//! projection (`match t { (v, 1) => .. }`, `if let [first, ..] = xs.as_slice()`, `let [a,
//! .., z] = arr;`). A part of the pattern that binds nothing (`1`, `Color::Red`, `0..=3`)
//! is tested with `matches!`.
use super::matching::{bindings, irrefutable};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Pat;

/// The test and the bindings of a pattern.
pub(super) struct Parts {
    /// What the value must satisfy (`s.len() == 2 && s[1] == 1`; `None`: every value).
    pub(super) test: Option<syn::Expr>,
    /// `let a = &s[0]; let z = &s[s.len() - 1]; let rest = &s[1..s.len() - 1];`.
    pub(super) binds: TokenStream,
    /// The same bindings as copies, for a guard: it runs before the arm, which binds
    /// the parts again.
    pub(super) guard_binds: TokenStream,
}

/// Whether `pat` destructures a tuple, a slice, an array or a struct (through `&` and
/// parentheses) and binds a name inside it: the patterns [`parts`] rewrites in a `match`.
pub(super) fn binds_parts(pat: &Pat) -> bool {
    match pat {
        Pat::Reference(r) => binds_parts(&r.pat),
        Pat::Paren(p) => binds_parts(&p.pat),
        Pat::Tuple(_) | Pat::Slice(_) => !bindings(pat).is_empty(),
        Pat::Struct(st) => of_a_struct(st) && !bindings(pat).is_empty(),
        _ => false,
    }
}

/// Whether a struct pattern names a struct, as far as its path shows: one name (`P {
/// x, y }`, `Self { .. }`). A path of several (`Shape::Rect { w, h }`) is taken for an
/// enum's variant, which has no fields to read: such a `match` stays as written. (A
/// variant imported by its own name is read by field too, which rustc refuses, E0609:
/// never a wrong result.)
fn of_a_struct(st: &syn::PatStruct) -> bool {
    st.qself.is_none() && st.path.segments.len() == 1
}

/// Whether patterns matched against one value show it is a slice, not an array taken
/// by value (an array's patterns all have its length, and bind a rest as an array of
/// its own): two slice patterns, or a named rest. A slice is matched through a
/// reference, so its parts are bound as references.
pub(super) fn of_a_slice<'a>(pats: impl Iterator<Item = &'a Pat>) -> bool {
    let slices: Vec<&syn::PatSlice> = pats
        .filter_map(|p| match p {
            Pat::Slice(s) => Some(s),
            _ => None,
        })
        .collect();
    slices.len() > 1
        || slices.iter().any(|s| {
            s.elems
                .iter()
                .any(|e| is_rest(e) && matches!(e, Pat::Ident(_)))
        })
}

/// Whether `pat` is a slice or array pattern (through `&` and parentheses).
fn is_slice(pat: &Pat) -> bool {
    match pat {
        Pat::Reference(r) => is_slice(&r.pat),
        Pat::Paren(p) => is_slice(&p.pat),
        Pat::Slice(_) => true,
        _ => false,
    }
}

/// Whether `pat` is the rest of a slice pattern: `..` or `name @ ..`.
pub(super) fn is_rest(pat: &Pat) -> bool {
    match pat {
        Pat::Rest(_) => true,
        Pat::Ident(i) => i
            .subpat
            .as_ref()
            .is_some_and(|(_, p)| matches!(&**p, Pat::Rest(_))),
        _ => false,
    }
}

/// `pat` matched against the place `place`: its names bound as references to the parts
/// when `by_ref` (Rust's binding mode under a reference; `&[a, b]` binds copies), else
/// as the parts themselves. `None` where the pattern is not one of tuples, slices,
/// arrays, structs, names and parts that bind nothing (an enum variant binding names,
/// `name @ pattern`, a tuple's `..` followed by elements, two rests, a named rest of an
/// array taken by value): the caller keeps the construct as it was. `elements`: for a
/// tuple built in place (`match (p, k)`), which of its elements are references, whose
/// parts a pattern binds as references as well.
pub(super) fn parts(
    pat: &Pat,
    place: &TokenStream,
    by_ref: bool,
    elements: &[bool],
) -> Option<Parts> {
    let mut walk = Walk {
        elements: Some(elements),
        tests: Vec::new(),
        binds: TokenStream::new(),
        guard_binds: TokenStream::new(),
    };
    walk.pattern(pat, place.clone(), by_ref)?;
    let test = match walk.tests.split_first() {
        None => None,
        Some((first, rest)) => Some(syn::parse2(quote!(#first #(&& #rest)*)).ok()?),
    };
    Some(Parts {
        test,
        binds: walk.binds,
        guard_binds: walk.guard_binds,
    })
}

/// What [`parts`] gathers, in the order the value is read: a length is tested before
/// the elements it guards.
struct Walk<'a> {
    /// Which elements of the tuple matched are references (taken by its pattern).
    elements: Option<&'a [bool]>,
    tests: Vec<TokenStream>,
    binds: TokenStream,
    guard_binds: TokenStream,
}

impl Walk<'_> {
    fn pattern(&mut self, pat: &Pat, place: TokenStream, by_ref: bool) -> Option<()> {
        let span = pat.span();
        // A slice pattern is tested by its length and elements even where it binds
        // nothing (`[]`, `[_, 0.0]`): a test reading the whole slice by `matches!` would
        // read, at second order, its plain values, a `Vec`.
        if bindings(pat).is_empty() && !is_slice(pat) {
            if !irrefutable(pat) {
                self.tests
                    .push(quote_spanned!(span=> ::core::matches!(#place, #pat)));
            }
            return Some(());
        }
        match pat {
            Pat::Ident(i) if i.subpat.is_none() => {
                // `mut a` and `ref a` bind as written, whatever the binding mode.
                let amp = (by_ref && i.mutability.is_none() && i.by_ref.is_none())
                    .then(|| quote_spanned!(span=> &));
                self.binds
                    .extend(quote_spanned!(span=> let #pat = #amp #place;));
                let copy = match &amp {
                    Some(_) => quote_spanned!(span=> &#place),
                    None => quote_spanned!(span=> #place.clone()),
                };
                self.guard_binds
                    .extend(quote_spanned!(span=> let #pat = #copy;));
                Some(())
            }
            Pat::Paren(p) => self.pattern(&p.pat, place, by_ref),
            Pat::Type(t) => self.pattern(&t.pat, place, by_ref),
            Pat::Reference(r) if r.mutability.is_none() => self.pattern(&r.pat, place, false),
            Pat::Tuple(t) => {
                let elements = self.elements.take().unwrap_or_default();
                for (i, elem) in t.elems.iter().enumerate() {
                    if is_rest(elem) {
                        // `(a, ..)`: the elements after a rest need the tuple's length.
                        if i + 1 < t.elems.len() {
                            return None;
                        }
                        break;
                    }
                    let index = syn::Index::from(i);
                    let by_ref = by_ref || elements.get(i) == Some(&true);
                    self.pattern(elem, quote_spanned!(span=> #place.#index), by_ref)?;
                }
                Some(())
            }
            Pat::Slice(s) => self.slice(s, place, by_ref),
            // `P { x: a, y, .. }`: each named field read from the struct.
            Pat::Struct(st) if of_a_struct(st) => {
                for f in &st.fields {
                    let member = &f.member;
                    self.pattern(&f.pat, quote_spanned!(span=> #place.#member), by_ref)?;
                }
                Some(())
            }
            _ => None,
        }
    }

    /// `[p, .., q]`: the length, then each element by its index from the start or the
    /// end, and a named rest as a sub-slice.
    fn slice(&mut self, s: &syn::PatSlice, place: TokenStream, by_ref: bool) -> Option<()> {
        let span = s.span();
        let elems = &s.elems;
        if elems.iter().filter(|p| is_rest(p)).count() > 1 {
            return None;
        }
        let rest = elems.iter().position(is_rest);
        let before = rest.unwrap_or(elems.len());
        let after = elems.len() - before - usize::from(rest.is_some());
        match rest {
            None => {
                let n = elems.len();
                self.tests.push(quote_spanned!(span=> #place.len() == #n));
            }
            Some(_) if before + after == 0 => {}
            Some(_) => {
                let n = before + after;
                self.tests.push(quote_spanned!(span=> #place.len() >= #n));
            }
        }
        for (i, elem) in elems.iter().enumerate() {
            if Some(i) == rest {
                if let Pat::Ident(name) = elem {
                    if !by_ref {
                        return None;
                    }
                    let ident = &name.ident;
                    let sub = quote_spanned!(span=> &#place[#before..#place.len() - #after]);
                    self.binds.extend(quote_spanned!(span=> let #ident = #sub;));
                    self.guard_binds
                        .extend(quote_spanned!(span=> let #ident = #sub;));
                }
                continue;
            }
            let index = match rest {
                Some(r) if i > r => {
                    let from_end = elems.len() - i;
                    quote_spanned!(span=> #place.len() - #from_end)
                }
                _ => quote_spanned!(span=> #i),
            };
            self.pattern(elem, quote_spanned!(span=> #place[#index]), by_ref)?;
        }
        Some(())
    }
}
