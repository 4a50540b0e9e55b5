//! The tangent of a field, read and written by generated code: `d.m.__diff_set(v)` for a
//! named field, `TupleField::<0>::__diff_set(&mut d, v)` for a position (a tuple struct's
//! tangent leaves out its `#[no_derivative]` fields, so it maps positions itself). The
//! four accesses are diff-core's `FieldTangent` (`fields.rs`).
use proc_macro2::TokenStream;
use quote::quote;

/// One access to a field's tangent.
#[derive(Clone, Copy)]
pub enum Access {
    /// `Option<field tangent>` from `&whole`.
    Read,
    /// `field += arg` on `&mut whole`.
    Accumulate,
    /// `field = arg` (an optional tangent) on `&mut whole`.
    Set,
    /// The field's optional tangent, leaving zero, on `&mut whole`.
    Take,
}

/// `access` on field `member` of the tangent `whole` (a place expression), with `arg`.
pub fn access(
    whole: TokenStream,
    member: &syn::Member,
    access: Access,
    arg: TokenStream,
) -> TokenStream {
    let method = match access {
        Access::Read => quote!(__diff_field),
        Access::Accumulate => quote!(__diff_accumulate),
        Access::Set => quote!(__diff_set),
        Access::Take => quote!(__diff_take),
    };
    match member {
        syn::Member::Named(_) => quote! { #whole.#member.#method(#arg) },
        syn::Member::Unnamed(index) => {
            let n = index.index as usize;
            let whole = match access {
                Access::Read => quote!(&#whole),
                _ => quote!(&mut #whole),
            };
            quote! { ::diff::__private::TupleField::<#n>::#method(#whole, #arg) }
        }
    }
}
