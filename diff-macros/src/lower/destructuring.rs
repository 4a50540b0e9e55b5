//! Patterns that bind parts of a value (`(v, 1)`, `[a, b]`, `[first, .., last]`,
//! `[head, tail @ ..]`, `&[x, ..]`) as tests of the value and reads of its parts by
//! field and index, so that each part's derivative flows through a projection
//! (`match t { (v, 1) => .. }`, `if let [first, ..] = xs.as_slice()`, `let [a, .., z] =
//! arr;`). A part of the pattern that binds nothing (`1`, `Color::Red`, `0..=3`) is
//! tested with `matches!`.
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

/// Whether `pat` destructures a tuple, a slice or an array (through `&`, parentheses and
/// `name @`) and binds a name inside it: the patterns [`parts`] rewrites in a `match`.
pub(super) fn binds_parts(pat: &Pat) -> bool {
    match pat {
        Pat::Reference(r) => binds_parts(&r.pat),
        Pat::Paren(p) => binds_parts(&p.pat),
        Pat::Tuple(_) | Pat::Slice(_) => !bindings(pat).is_empty(),
        _ => false,
    }
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
/// arrays, names and parts that bind nothing (a struct or enum variant binding names,
/// `name @ pattern`, a tuple's `..` followed by elements, two rests, a named rest of an
/// array taken by value): the caller keeps the construct as it was.
pub(super) fn parts(pat: &Pat, place: &TokenStream, by_ref: bool) -> Option<Parts> {
    let mut walk = Walk {
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
struct Walk {
    tests: Vec<TokenStream>,
    binds: TokenStream,
    guard_binds: TokenStream,
}

impl Walk {
    fn pattern(&mut self, pat: &Pat, place: TokenStream, by_ref: bool) -> Option<()> {
        let span = pat.span();
        if bindings(pat).is_empty() {
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
                for (i, elem) in t.elems.iter().enumerate() {
                    if is_rest(elem) {
                        // `(a, ..)`: the elements after a rest need the tuple's length.
                        if i + 1 < t.elems.len() {
                            return None;
                        }
                        break;
                    }
                    let index = syn::Index::from(i);
                    self.pattern(elem, quote_spanned!(span=> #place.#index), by_ref)?;
                }
                Some(())
            }
            Pat::Slice(s) => self.slice(s, place, by_ref),
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
