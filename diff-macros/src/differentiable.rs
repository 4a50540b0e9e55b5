//! `#[differentiable]`: the pipeline from the user's function to its companions.
use crate::analysis::activity::Activity;
use crate::emit::companion::Companions;
use crate::parse::attr::DifferentiableArgs;
use crate::parse::signature::FnSig;
use crate::{check, lower};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;

/// Expands the attribute. On any error the original function is still emitted, with
/// the errors beside it, so the rest of the crate keeps compiling.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let func: syn::ImplItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let e = syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[differentiable] applies to a function or a method",
            );
            let err = e.to_compile_error();
            return quote! { #err #item };
        }
    };
    match companions(args, &func) {
        Ok(companions) => {
            if std::env::var_os("DIFF_DEBUG_EXPAND").is_some() {
                eprintln!("<<<DIFF\n{companions}\nDIFF>>>");
            }
            quote! { #func #companions }
        }
        Err(e) => {
            let err = e.to_compile_error();
            quote! { #func #err }
        }
    }
}

fn companions(args: TokenStream, func: &syn::ImplItemFn) -> syn::Result<TokenStream> {
    let args = DifferentiableArgs::parse(args)?;
    let sig = FnSig::new(&func.sig, args.wrt.as_ref().map(|w| w.0.as_slice()))?;
    if let Some(a) = &func.sig.asyncness {
        return Err(syn::Error::new(a.span(), "an `async fn` cannot be #[differentiable]"));
    }
    let output_tangent = sig.output_tangent(func.sig.output.span())?;
    let pats: Vec<syn::Pat> = sig.params.iter().map(|p| p.pat.clone()).collect();
    let lowered = lower::lower_body(&pats, &func.block, sig.roles.scalars.clone())?;
    let act = Activity::analyze(&lowered.func, &sig.wrt());
    if let Some(e) = check::check(&lowered.func, &act) {
        return Err(e);
    }
    let companions = Companions {
        sig: &sig,
        vis: &func.vis,
        func: &lowered.func,
        act: &act,
        items: &lowered.items,
    };
    Ok(companions.emit(&output_tangent).into_token_stream())
}
