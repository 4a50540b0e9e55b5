//! Warnings where Swift warns: a parameter named in `wrt` that the result does not depend
//! on, and a function whose derivative is always zero; and a function of a block marked as
//! a whole that is left without a derivative, with why. A procedural macro cannot emit a
//! warning on stable Rust, so each is the use of a deprecated constant, spanned at the
//! user's code, whose note is the message (`#[allow(deprecated)]` on the function
//! silences it).
use crate::analysis::activity::Activity;
use crate::ir::Function;
use crate::parse::signature::FnSig;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;

/// A hidden function whose body uses one deprecated constant per warning; nothing when
/// there is nothing to warn about.
pub fn emit(sig: &FnSig, func: &Function, explicit_wrt: bool, ident: &syn::Ident) -> TokenStream {
    let wrt: Vec<usize> = sig
        .wrt()
        .into_iter()
        .filter(|i| !sig.params[*i].mutable)
        .collect();
    if wrt.is_empty() {
        return TokenStream::new();
    }
    let inert: Vec<usize> = wrt
        .iter()
        .copied()
        .filter(|i| {
            let act = Activity::analyze(func, &[*i]);
            !act.varied.iter().any(|v| act.useful.contains(v))
        })
        .collect();
    let mut warnings = Vec::new();
    if inert.len() == wrt.len() && !explicit_wrt {
        warnings.push((
            ident.span(),
            format!(
                "the result of `{ident}` does not depend on its differentiated parameters: its derivative is always zero"
            ),
        ));
    } else if explicit_wrt {
        for i in inert {
            let p = &sig.params[i];
            warnings.push((
                p.pat.span(),
                format!(
                    "`{}` is named in `wrt`, but the result of `{ident}` does not depend on it: its derivative is always zero (leave it out of `wrt`)",
                    p.ident
                ),
            ));
        }
    }
    if warnings.is_empty() {
        return TokenStream::new();
    }
    let uses = uses(&warnings);
    let f = quote::format_ident!("__diff_warnings_{}", ident, span = Span::call_site());
    quote! {
        #[doc(hidden)]
        #[allow(dead_code, non_snake_case)]
        fn #f() { #uses }
    }
}

/// The warnings that the function `method` of a block marked as a whole (marking none
/// of its functions) is left without a derivative, at each construct the macro could not
/// differentiate (`errors`): a caller differentiating through it fails to find its
/// derivative, and the warning says why.
pub fn left_as_it_is(method: &syn::Ident, errors: &crate::errors::Errors) -> TokenStream {
    let warnings: Vec<(Span, String)> = errors
        .iter()
        .map(|e| {
            (
                e.span(),
                format!("`{method}` is left without a derivative (its block marks none of its functions, and this one cannot be differentiated): {e}; to silence this, mark the block's functions to differentiate #[differentiable] (the block then leaves the others), or mark `fn {method}` to make this an error"),
            )
        })
        .collect();
    let uses = uses(&warnings);
    quote! {
        const _: () = { #uses };
    }
}

/// One deprecated constant per warning, used where the warning is reported.
fn uses(warnings: &[(Span, String)]) -> TokenStream {
    warnings
        .iter()
        .enumerate()
        .map(|(k, (span, note))| {
            // The use is spanned at the user's code, where the warning is reported.
            let (c, used) = (
                quote::format_ident!("DIFF_WARNING_{}", k),
                quote::format_ident!("DIFF_WARNING_{}", k, span = *span),
            );
            quote! {
                #[deprecated(note = #note)]
                const #c: () = ();
                let _ = #used;
            }
        })
        .collect()
}
