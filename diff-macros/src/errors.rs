//! One error context per expansion (docs/ARCHITECTURE.md, "Errors"): every stage reports
//! what it refuses into it and goes on where it can, so the user sees every error of a
//! function at once, each at its own span, and nothing is reported twice.
use proc_macro2::TokenStream;

/// The errors found so far.
#[derive(Default)]
pub struct Errors {
    list: Vec<syn::Error>,
}

impl Errors {
    /// Records an error (a combined error is kept as it is).
    pub fn push(&mut self, e: syn::Error) {
        let text = e.to_string();
        let span = format!("{:?}", e.span());
        let seen = self
            .list
            .iter()
            .any(|old| old.to_string() == text && format!("{:?}", old.span()) == span);
        if !seen {
            self.list.push(e);
        }
    }

    /// Records every error of `other`.
    pub fn append(&mut self, other: Errors) {
        for e in other.list {
            self.push(e);
        }
    }

    /// The value of `r`, or `None` after recording its error.
    pub fn take<T>(&mut self, r: syn::Result<T>) -> Option<T> {
        r.map_err(|e| self.push(e)).ok()
    }

    /// Whether nothing was refused.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// How many errors have been recorded: with [`Errors::truncate`], a stage that runs
    /// twice over the same code (a loop body's first pass) reports once.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Forgets the errors recorded after the first `len`.
    pub fn truncate(&mut self, len: usize) {
        self.list.truncate(len);
    }

    /// All errors as `compile_error!` invocations.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.list.iter().map(syn::Error::to_compile_error).collect()
    }

    /// `Ok(())` when nothing was refused, else every error combined into one.
    pub fn into_result(self) -> syn::Result<()> {
        let mut list = self.list.into_iter();
        match list.next() {
            None => Ok(()),
            Some(mut first) => {
                first.extend(list);
                Err(first)
            }
        }
    }
}
