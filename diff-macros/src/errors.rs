//! One error context per expansion (docs/ARCHITECTURE.md, "Errors"): every stage reports
//! what it refuses into it and goes on where it can, so the user sees every error of a
//! function at once, each at its own span, and nothing is reported twice.
use proc_macro2::TokenStream;

/// Runs an expansion; should the macro itself fail (a panic is a bug of diff, never the
/// user's), the user's `item` is emitted unchanged with an error saying so, instead of
/// rustc's "proc macro panicked" and a cascade of missing items.
pub fn guarded(item: &TokenStream, expand: impl FnOnce() -> TokenStream) -> TokenStream {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(expand)) {
        Ok(out) => out,
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let e = syn::Error::new(
                proc_macro2::Span::call_site(),
                format!(
                    "internal error in diff ({why}); please report it with the code that caused it"
                ),
            )
            .to_compile_error();
            quote::quote! { #e #item }
        }
    }
}

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

    /// The errors, in the order recorded.
    pub fn iter(&self) -> impl Iterator<Item = &syn::Error> {
        self.list.iter()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_beside_the_item() {
        let item: TokenStream = "fn f(x: f64) -> f64 { x }".parse().expect("tokens");
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let out = guarded(&item, || panic!("boom")).to_string();
        std::panic::set_hook(hook);
        assert!(out.contains("internal error in diff (boom)"), "{out}");
        assert!(out.ends_with(&item.to_string()), "{out}");
        let fine = guarded(&item, || item.clone()).to_string();
        assert_eq!(fine, item.to_string());
    }

    #[test]
    fn errors_are_kept_once_and_combined() {
        let mut errors = Errors::default();
        assert!(errors.is_empty());
        let span = proc_macro2::Span::call_site();
        errors.push(syn::Error::new(span, "a"));
        errors.push(syn::Error::new(span, "a"));
        errors.push(syn::Error::new(span, "b"));
        assert_eq!(errors.len(), 2);
        assert_eq!(errors.take::<()>(Err(syn::Error::new(span, "c"))), None);
        let all: Vec<String> = errors
            .into_result()
            .expect_err("three errors")
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(all, ["a", "b", "c"]);
    }
}
