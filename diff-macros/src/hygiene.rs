//! The generated code's own local names kept apart from the user's.
//!
//! Generated code binds locals of its own (`seed`, `s`, `linear_map`, `t_3`, ..) around
//! tokens the user wrote: a closure given to a nested operator, an expression kept as
//! written. A name the user's tokens take from their surroundings (a captured `seed`, or
//! `t_1` of an enclosing expansion) must not find one of those locals instead. So every
//! identifier the macro made itself (spanned at the call site) gets `macro_rules`
//! hygiene ([`Span::mixed_site`]): as a local variable or label it resolves only among
//! the macro's own names; as anything else (a type, a function, a path) it resolves
//! where the macro is called, as before. The user's tokens keep their spans.
use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};

/// `tokens` with each identifier spanned at the call site given mixed-site hygiene
/// (`self` and the path keywords excepted: a method's `self` is the user's).
pub fn apart(tokens: TokenStream) -> TokenStream {
    rewrite(tokens, &format!("{:?}", Span::call_site()))
}

fn rewrite(tokens: TokenStream, call_site: &str) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut out = Group::new(g.delimiter(), rewrite(g.stream(), call_site));
                out.set_span(g.span());
                TokenTree::Group(out)
            }
            TokenTree::Ident(id) if own(&id, call_site) => {
                let mut id = id;
                id.set_span(Span::mixed_site());
                TokenTree::Ident(id)
            }
            other => other,
        })
        .collect()
}

/// Whether `id` is one the macro made (spanned at the call site), and no keyword whose
/// meaning depends on where it is resolved.
fn own(id: &Ident, call_site: &str) -> bool {
    let keyword = matches!(id.to_string().as_str(), "self" | "Self" | "super" | "crate");
    !keyword && format!("{:?}", id.span()) == call_site
}

/// The span for a name of the macro's own written at the user's `span` (where rustc
/// reports an error about it): resolved as [`apart`] resolves the macro's names.
pub fn own_at(span: Span) -> Span {
    Span::mixed_site().located_at(span)
}
