//! Emission: Rust tokens for the companions of a differentiable function.
pub mod companion;
pub mod differential;
pub mod dual;
pub mod fields;
pub mod names;
pub mod primal;
pub mod pullback;

/// Which captures of a nested operator's closure carry derivatives (`Capture::kept`
/// active): the derivatives take the closure's gradient in those too.
pub fn active_captures(
    act: &crate::analysis::activity::Activity,
    n: &crate::ir::Nested,
) -> Vec<bool> {
    n.captures.iter().map(|c| act.is_active(c.kept)).collect()
}

/// The check that the capture `v` of nested operator `n` can be lifted to dual numbers
/// (`captured_lifts`), at the closure, where rustc reports one that cannot.
pub fn capture_check(n: &crate::ir::Nested, v: &proc_macro2::Ident) -> proc_macro2::TokenStream {
    let span = syn::spanned::Spanned::span(&n.of);
    let v = proc_macro2::Ident::new(&v.to_string(), span);
    quote::quote_spanned! {span=> ::diff::__private::captured_lifts(&#v); }
}
