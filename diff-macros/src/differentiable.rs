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
            crate::debug::dump(&companions);
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
    let mut sig = FnSig::new(&func.sig, args.wrt.as_ref().map(|w| w.0.as_slice()))?;
    sig.detached = !looks_like_method(func);
    if let Some(a) = &func.sig.asyncness {
        return Err(syn::Error::new_spanned(
            a,
            "an `async fn` cannot be #[differentiable]",
        ));
    }
    let output_tangent = sig.output_tangent(func.sig.output.span())?;
    let pats: Vec<syn::Pat> = sig.params.iter().map(|p| p.pat.clone()).collect();
    let refs = sig
        .params
        .iter()
        .filter(|p| p.by_ref)
        .map(|p| p.ident.to_string())
        .collect();
    let muts = sig.mutated();
    let lowered = lower::lower_body(&pats, &func.block, sig.roles.scalars.clone(), refs, muts)?;
    let act = Activity::analyze(&lowered.func, &sig.wrt());
    // A function calling itself boxes that call's linear map (`Box<dyn ..>`, which is
    // `'static` for a free function): its type parameters must be `'static` too.
    let recursive = lowered
        .func
        .regions
        .iter()
        .flat_map(|r| r.stmts.iter())
        .any(|s| match &s.inst {
            crate::ir::Inst::Call(c, _) | crate::ir::Inst::CallMut(c, _, _) => {
                crate::emit::primal::is_call_of(c, &sig.ident.to_string())
            }
            _ => false,
        });
    if recursive && sig.detached {
        let tys: Vec<syn::Ident> = sig
            .generics
            .type_params()
            .map(|t| t.ident.clone())
            .collect();
        for t in tys {
            sig.generics
                .make_where_clause()
                .predicates
                .push(syn::parse_quote!(#t: 'static));
        }
    }
    if let Some(e) = check::check(&lowered.func, &act) {
        return Err(e);
    }
    if looks_like_method(func) {
        let companions = Companions {
            sig: &sig,
            vis: &func.vis,
            func: &lowered.func,
            act: &act,
            items: &lowered.items,
        };
        return Ok(companions.emit(&output_tangent).into_token_stream());
    }
    // A free function: the companions live in a hidden module, glob-imported, so that a
    // registered derivative (`#[derivative(of = f)]`, an item of the same name) shadows
    // them and takes precedence over differentiating the body.
    let public: syn::Visibility = syn::parse_quote!(pub);
    let companions = Companions {
        sig: &sig,
        vis: &public,
        func: &lowered.func,
        act: &act,
        items: &lowered.items,
    };
    let items = companions.emit(&output_tangent);
    let m = quote::format_ident!("__diff_{}", func.sig.ident);
    let vis = &func.vis;
    Ok(quote! {
        #[doc(hidden)]
        #[allow(non_snake_case)]
        mod #m {
            #[allow(unused_imports)]
            use super::*;
            #items
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #m::*;
    })
}

/// Whether `func` is (most likely) an associated function in an `impl` block: it has a
/// receiver or names `Self`. Such companions are emitted as associated functions.
fn looks_like_method(func: &syn::ImplItemFn) -> bool {
    fn mentions_self(ts: proc_macro2::TokenStream) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i == "Self" || i == "self",
            proc_macro2::TokenTree::Group(g) => mentions_self(g.stream()),
            _ => false,
        })
    }
    func.sig.receiver().is_some()
        || mentions_self(func.sig.to_token_stream())
        || mentions_self(func.block.to_token_stream())
}
