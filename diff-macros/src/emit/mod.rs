//! Emission: Rust tokens for the companions of a differentiable function.
pub mod companion;
pub mod differential;
pub mod dual;
pub mod environment;
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
    // (Bound to a name of the user's span, where rustc then reports the error.)
    let v = proc_macro2::Ident::new(&v.to_string(), crate::hygiene::own_at(span));
    quote::quote_spanned! {span=> {
        let __diff_capture = &#v;
        ::diff::__private::captured_lifts(__diff_capture);
    } }
}

/// The point of nested operator `n` extended by its active captures, as the derivatives
/// give it to `nested_derivative`.
pub struct ExtendedPoint {
    /// `&(&x.0, .., &c, ..)`: the point's parts (`x` names the point), then the active
    /// captures' kept values.
    pub point: proc_macro2::TokenStream,
    /// The checks that the captures lift ([`capture_check`]).
    pub checks: proc_macro2::TokenStream,
    /// The active captures' kept values, with their places in the tuple.
    pub captured: Vec<(crate::ir::Value, syn::Index)>,
}

/// [`ExtendedPoint`] of `n`, its point named `x`, the captures' values named by `name`.
pub fn extended_point(
    n: &crate::ir::Nested,
    x: &proc_macro2::Ident,
    active: &[bool],
    name: impl Fn(crate::ir::Value) -> proc_macro2::Ident,
) -> ExtendedPoint {
    let mut parts: Vec<proc_macro2::TokenStream> = n
        .parts_of(&quote::quote!(#x))
        .into_iter()
        .map(|p| quote::quote!(&#p))
        .collect();
    let (mut checks, mut captured) = (proc_macro2::TokenStream::new(), Vec::new());
    for (c, _) in n.captures.iter().zip(active).filter(|(_, a)| **a) {
        let v = name(c.kept);
        checks.extend(capture_check(n, &v));
        captured.push((c.kept, syn::Index::from(parts.len())));
        parts.push(quote::quote!(&#v));
    }
    ExtendedPoint {
        point: quote::quote!(&(#(#parts,)*)),
        checks,
        captured,
    }
}
