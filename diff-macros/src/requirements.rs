//! What a function's derivatives need of the functions it calls (docs/ARCHITECTURE.md,
//! "Requirements"), checked where an operator runs them.
//!
//! The carrier of a free function implements `Derivatives` (diff-core `requirements.rs`):
//! for each mode, the pairs of its callees' requirements, or a missing mode's own type
//! whose `Holds` needs a trait with no implementation and a message saying why. An
//! operator calls `requires::<<f as Derivatives>::Reverse>()` for the function it
//! differentiates (or for each function a closure calls), so a mode missing anywhere in
//! the chain is a compile error at the operator naming the callee, and a caller that
//! never uses the mode compiles.
use crate::analysis::activity::Activity;
use crate::emit::names::{self, Kind};
use crate::ir::{Callee, Function, Inst};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

/// A mode, as a requirement: the associated type of `Derivatives` naming it.
#[derive(Clone, Copy)]
pub enum Need {
    Reverse,
    Forward,
    Second,
}

impl Need {
    /// What running companion `kind` needs.
    pub fn of(kind: Kind) -> Need {
        match kind {
            Kind::Vjp | Kind::Pullback => Need::Reverse,
            Kind::Jvp | Kind::Differential => Need::Forward,
            Kind::VjpDual => Need::Second,
        }
    }

    fn assoc(self) -> Ident {
        Ident::new(
            match self {
                Need::Reverse => "Reverse",
                Need::Forward => "Forward",
                Need::Second => "Second",
            },
            Span::call_site(),
        )
    }
}

/// The carriers of the functions `func` calls with a derivative (a call of a path that
/// finds its companions through the carrier), each once, leaving out the function itself
/// (`own`, none for a closure) and the functions that call it back, and names that items of its body define (`local`), which
/// the carrier's implementation beside the function cannot see.
pub fn callees(
    func: &Function,
    act: &Activity,
    own: Option<&Ident>,
    local: &[Ident],
) -> Vec<syn::Path> {
    let mut out: Vec<syn::Path> = Vec::new();
    let stmts = func.regions.iter().flat_map(|r| r.stmts.iter());
    for stmt in stmts {
        let (Inst::Call(Callee::Path(p), _) | Inst::CallMut(Callee::Path(p), ..)) = &stmt.inst
        else {
            continue;
        };
        if crate::ir::is_library_path(p) || !stmt.results.iter().any(|v| act.is_active(*v)) {
            continue;
        }
        let Some(carrier) = names::carrier(&p.path, p.qself.is_some()) else {
            continue;
        };
        let first = &carrier.segments[0].ident;
        let last = &carrier.segments[carrier.segments.len() - 1].ident;
        let itself = own.is_some_and(|own| last == own) && names::by_name_alone(&carrier);
        // A callee calling the function back (mutual recursion) would make its
        // requirements contain themselves: it is checked when it runs instead.
        let cycle = own.is_some_and(|own| {
            crate::source::reaches(last.span(), &last.to_string(), &own.to_string())
        });
        if itself || cycle || local.contains(first) || out.contains(&carrier) || constructs(last) {
            continue;
        }
        out.push(carrier);
    }
    out
}

/// The methods `func` calls on values that carry a derivative whose derivative is
/// registered and which the crate marks nowhere (`lifting::calls_registration`): a
/// registration gives first order only.
pub fn registered_methods(func: &Function, act: &Activity) -> Vec<Ident> {
    let mut out: Vec<Ident> = Vec::new();
    for stmt in func.regions.iter().flat_map(|r| r.stmts.iter()) {
        let (Inst::Call(Callee::Method { method, user, .. }, _)
        | Inst::CallMut(Callee::Method { method, user, .. }, ..)) = &stmt.inst
        else {
            continue;
        };
        let active = stmt.results.iter().any(|v| act.is_active(*v));
        if active && crate::lifting::calls_registration(method, *user) && !out.contains(method) {
            out.push(method.clone());
        }
    }
    out
}

/// Second order's requirements `second` with, for each of `methods` (see
/// [`registered_methods`]), a missing mode naming it, and the items that define those
/// (in the hidden module `m` of the function's carrier).
pub fn registered_only_methods(
    m: &Ident,
    methods: &[Ident],
    second: &TokenStream,
) -> (TokenStream, TokenStream) {
    let mut items = TokenStream::new();
    let mut needs = second.clone();
    for method in methods {
        let leaf = format_ident!("__DiffSecondOrderOf_{}", method);
        let gate = format_ident!("__DiffRegisteredFirstOrderOnly_{}", method);
        let message = format!(
            "second order needs the derivative of the method `{method}` on dual numbers, but its derivative is registered (#[derivative(of = ..)]), which gives first order only; write `{method}` as a #[differentiable] function (or generic over `T: Float`) to take second derivatives through it"
        );
        items.extend(missing(
            &leaf,
            &gate,
            &message,
            "second order of a function calling it",
        ));
        needs = quote!((#m::#leaf, #needs));
    }
    (needs, items)
}

/// Whether a call of `name` builds a tuple struct (`Pair(a, b)`), whose constructor's
/// companions `#[derive(Differentiable)]` gives and which needs nothing: a type the crate
/// defines, or, defined elsewhere, a name in `UpperCamelCase`, which Rust's naming
/// lints reserve for types.
fn constructs(name: &Ident) -> bool {
    let text = name.to_string();
    crate::source::differentiable_type(name.span(), &text).is_some()
        || text.starts_with(|c: char| c.is_ascii_uppercase())
}

/// The names the items of a body define (functions, imports, modules, types).
pub fn local_names(items: &[syn::Item]) -> Vec<Ident> {
    let mut out = Vec::new();
    for item in items {
        match item {
            syn::Item::Fn(f) => out.push(f.sig.ident.clone()),
            syn::Item::Mod(m) => out.push(m.ident.clone()),
            syn::Item::Struct(s) => out.push(s.ident.clone()),
            syn::Item::Use(u) => use_names(&u.tree, &mut out),
            _ => {}
        }
    }
    out
}

fn use_names(tree: &syn::UseTree, out: &mut Vec<Ident>) {
    match tree {
        syn::UseTree::Path(p) => use_names(&p.tree, out),
        syn::UseTree::Name(n) => out.push(n.ident.clone()),
        syn::UseTree::Rename(r) => out.push(r.rename.clone()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_names(t, out)),
        // A glob may bring any name: the carrier's implementation cannot see them.
        syn::UseTree::Glob(_) => out.push(format_ident!("__diff_any_name")),
    }
}

/// All of `callees`' requirements of mode `need`: `(<a as Derivatives>::Reverse, (.., ()))`.
pub fn all_of(callees: &[syn::Path], need: Need) -> TokenStream {
    let assoc = need.assoc();
    callees.iter().rev().fold(
        quote!(()),
        |rest, c| quote!((<#c as ::diff::__private::Derivatives>::#assoc, #rest)),
    )
}

/// The `Derivatives` implementation of `carrier`, with what its reverse mode, forward
/// mode and second order need: for a differentiable function its callees' ([`all_of`]),
/// for a registration its own requirements ([`gated`]).
pub fn implementation(
    carrier: &TokenStream,
    [reverse, forward, second]: [TokenStream; 3],
) -> TokenStream {
    quote! {
        impl ::diff::__private::Derivatives for #carrier {
            type Reverse = #reverse;
            type Forward = #forward;
            type Second = #second;
        }
    }
}

/// A requirement met where `gate` is implemented for `&()`: the type `leaf` (a path to
/// it) and its `Holds` implementation. (`gate` is `Available` where the mode is given,
/// else a trait with no implementation whose message says what to add.)
pub fn gated(leaf: &TokenStream, gate: &TokenStream) -> TokenStream {
    quote! {
        impl<'gate> ::diff::__private::Holds<#leaf> for &'gate ()
        where
            &'gate (): #gate
        {
        }
    }
}

/// A mode that is missing, as a requirement: the type `leaf`, whose `Holds` needs
/// `gate`, a trait with no implementation whose message is `message`.
pub fn missing(leaf: &Ident, gate: &Ident, message: &str, label: &str) -> TokenStream {
    let holds = gated(&quote!(#leaf), &quote!(#gate));
    quote! {
        #[doc(hidden)]
        #[allow(dead_code)]
        pub struct #leaf;
        #[doc(hidden)]
        #[diagnostic::on_unimplemented(message = #message, label = #label)]
        pub trait #gate {}
        #holds
    }
}

/// The compile-time check an operator makes before running `need` of the function
/// whose carrier is `carrier`, spanned at the user's path.
pub fn check(carrier: &syn::Path, need: Need, span: Span) -> TokenStream {
    let mut assoc = need.assoc();
    assoc.set_span(span);
    let carrier = respan(carrier.to_token_stream(), span);
    quote_spanned! {span=>
        ::diff::__private::requires::<<#carrier as ::diff::__private::Derivatives>::#assoc>();
    }
}

/// `ts` with every token at `span`, so that an error about the type they form points at
/// one place (tokens from two places make rustc point at the whole macro call).
pub(crate) fn respan(ts: TokenStream, span: Span) -> TokenStream {
    ts.into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut ng = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                ng.set_span(span);
                tt = ng.into();
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}
