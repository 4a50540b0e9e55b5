//! `#[derivative(of = path)]`: registering a derivative for a function, written by hand.
//!
//! The registration emits, beside the user's derivative, the same companions
//! `#[differentiable]` emits (`__vjp_h`, `__jvp_h`, `__pullback_h`, `__differential_h`), so
//! calls are rewritten the same way and Rust's name resolution finds the registration:
//! - a free function `h` (or `m::h`): companions in the registration's module; those of
//!   the mode derived from the other live in a hidden module glob-imported, so that an
//!   explicit registration of that mode (an item) shadows them;
//! - a method of a type (`Particle::energy`): an inherent impl block for the registered
//!   mode, and a trait (lower priority than inherent methods) for the derived one;
//! - a method of a scalar (`f64::cbrt`): an extension trait whose method takes `self` by
//!   value, which method resolution prefers over diff-std's `&self` rules.
use crate::emit::companion::{ident_for, Shapes};
use crate::emit::names::{self, Mode};
use crate::parse::derivative_attr::DerivativeArgs;
use crate::parse::signature::FnSig;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// Expands the attribute; on error the user's function is still emitted.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let err = e.to_compile_error();
            return quote! { #err #item };
        }
    };
    match registration(args, &func) {
        Ok(t) => {
            crate::debug::dump(&t);
            quote! { #func #t }
        }
        Err(e) => {
            let err = e.to_compile_error();
            quote! { #func #err }
        }
    }
}

/// Whether diff-std has a rule for the float method `name`, so that a registration of one
/// mode leaves the other to it.
///
/// The names are those of the rule table itself (`diff_core::float_rules::METHODS`, built
/// from the same table lines as diff-std's rules and `Dual`): this crate depends on
/// diff-core as an ordinary library and reads the list when the macro runs. A shared file
/// would not survive publishing the crates separately (a package holds only its own
/// files), and a copy checked against the table would be a second line to write for each
/// new float method.
fn has_std_rule(name: &Ident) -> bool {
    diff_core::float_rules::METHODS.iter().any(|m| name == m)
}

/// What the registration is for.
enum Target {
    /// A free function: its name.
    Function(Ident),
    /// A method or associated function of a type named by `ty` (a user type).
    TypeMethod(syn::Path, Ident),
    /// A method of a scalar (`f64::cbrt`).
    ScalarMethod(syn::Path, Ident),
}

fn target(of: &syn::Path) -> Target {
    let n = of.segments.len();
    let name = of.segments[n - 1].ident.clone();
    if n >= 2 {
        let owner = of.segments[n - 2].ident.to_string();
        let mut ty = of.clone();
        ty.segments.pop();
        let ty: syn::Path = syn::Path {
            leading_colon: ty.leading_colon,
            segments: ty.segments.into_pairs().map(|p| p.into_value()).collect(),
        };
        if matches!(owner.as_str(), "f32" | "f64") {
            return Target::ScalarMethod(ty, name);
        }
        if owner.starts_with(|c: char| c.is_uppercase()) {
            return Target::TypeMethod(ty, name);
        }
    }
    Target::Function(name)
}

/// The pieces every target needs.
struct Reg<'a> {
    func: &'a syn::ItemFn,
    args: DerivativeArgs,
    sig: FnSig,
    output_tangent: TokenStream,
    /// The user's linear map type: what the pullback returns / the differential takes.
    user_tangents: TokenStream,
}

fn registration(args: TokenStream, func: &syn::ItemFn) -> syn::Result<TokenStream> {
    let args = DerivativeArgs::parse(args)?;
    let (value_ty, _) = returned_pair(&func.sig)?;
    let mut sig = FnSig::new(&func.sig, None)?;
    sig.detached = matches!(target(&args.of), Target::Function(_));
    sig.output = value_ty.to_token_stream();
    sig.output_tangent = crate::parse::types::tangent(&value_ty, &sig.roles);
    let output_tangent = sig.output_tangent(value_ty.span())?;
    let name = match target(&args.of) {
        Target::Function(n) | Target::TypeMethod(_, n) | Target::ScalarMethod(_, n) => n,
    };
    sig.ident = name;
    let user_tangents = Shapes {
        sig: &sig,
        vis: &func.vis,
        in_impl: false,
    }
    .user_tangents()
    .1;
    let reg = Reg {
        func,
        args,
        sig,
        output_tangent,
        user_tangents,
    };
    let check = reg.signature_check();
    let items = match target(&reg.args.of) {
        Target::Function(_) => reg.free_function(),
        Target::TypeMethod(ty, _) => reg.type_method(&ty),
        Target::ScalarMethod(ty, _) => reg.scalar_method(&ty),
    };
    Ok(quote! { #check #items })
}

/// `(value, linear map)`: the two types of the registration's result.
fn returned_pair(sig: &syn::Signature) -> syn::Result<(syn::Type, syn::Type)> {
    let err = || {
        syn::Error::new_spanned(&sig.output, "a registered derivative returns `(value, pullback)` (or `(value, differential)` with `jvp`), e.g. `-> (f64, impl FnOnce(f64) -> f64)`")
    };
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return Err(err());
    };
    match &**ty {
        syn::Type::Tuple(t) if t.elems.len() == 2 => Ok((t.elems[0].clone(), t.elems[1].clone())),
        _ => Err(err()),
    }
}

impl Reg<'_> {
    fn mode(&self) -> Mode {
        if self.args.jvp {
            Mode::Jvp
        } else {
            Mode::Vjp
        }
    }

    fn user_fn(&self) -> &Ident {
        &self.func.sig.ident
    }

    /// `const _: () = { let _: fn(T0, T1) -> R = of; };`: the registered function must
    /// have the derivative's parameter and value types.
    fn signature_check(&self) -> TokenStream {
        let of = &self.args.of;
        let tys = self.func.sig.inputs.iter().map(|a| match a {
            syn::FnArg::Typed(t) => t.ty.to_token_stream(),
            syn::FnArg::Receiver(r) => r.ty.to_token_stream(),
        });
        let out = &self.sig.output;
        let (gen, _, wher) = self.func.sig.generics.split_for_impl();
        let span = of.span();
        let check = format_ident!("__diff_signature_check_{}", self.user_fn());
        quote_spanned! {span=>
            #[allow(dead_code, non_snake_case, clippy::all)]
            fn #check #gen () #wher {
                let _registered_function_has_the_derivatives_signature: fn(#(#tys),*) -> #out = #of;
            }
        }
    }

    /// The slot-convention companion of the registered mode, calling the user's function.
    fn registered(&self, sh: &Shapes, receiver: bool) -> TokenStream {
        let mode = self.mode();
        let user = self.user_fn();
        let args = sh.call_args();
        let n = self.sig.params.len();
        let wrt = self.sig.wrt();
        let gs: Vec<Ident> = wrt.iter().map(|i| names::ident(&format!("g{i}"))).collect();
        let pat = if gs.len() == 1 {
            quote!(#(#gs)*)
        } else {
            quote!((#(#gs,)*))
        };
        let rt = quote!(::diff::__private);
        let (ot, ut) = (&self.output_tangent, &self.user_tangents);
        let span = self.func.sig.output.span();
        let (ty, body) = match mode {
            Mode::Vjp => {
                let slots = (0..n).map(|i| match wrt.iter().position(|w| *w == i) {
                    Some(k) => {
                        let g = &gs[k];
                        quote!(::core::option::Option::Some(#g))
                    }
                    None => quote!(()),
                });
                let checked =
                    quote_spanned!(span=> #rt::registered_pullback::<#ot, #ut, _>(pullback));
                (
                    sh.vjp_type(ot),
                    quote! {
                        let (value, pullback) = #user(#(#args),*);
                        let pullback = #checked;
                        (value, move |seed| { let #pat = pullback(seed); (#(#slots,)*) })
                    },
                )
            }
            Mode::Jvp => {
                let ds: Vec<Ident> = (0..n).map(|i| names::ident(&format!("d{i}"))).collect();
                let inputs = wrt.iter().map(|i| {
                    let d = &ds[*i];
                    quote!(#d.unwrap_or_else(|| ::diff::VectorSpace::zero()))
                });
                let input = if wrt.len() == 1 {
                    quote!(#(#inputs)*)
                } else {
                    quote!((#(#inputs,)*))
                };
                let checked = quote_spanned!(span=> #rt::registered_differential::<#ut, #ot, _>(differential));
                (
                    sh.jvp_type(ot),
                    quote! {
                        let (value, differential) = #user(#(#args),*);
                        let differential = #checked;
                        (value, move |(#(#ds,)*)| ::core::option::Option::Some(differential(#input)))
                    },
                )
            }
        };
        let header = sh.header(names::companion(&self.sig.ident, mode), ty);
        self.maybe_receiver(quote! { #header { #body } }, receiver)
    }

    /// The user-shaped companion of the registered mode: the user's function itself.
    fn registered_user(&self, sh: &Shapes, receiver: bool) -> TokenStream {
        let (prefix, ty) = match self.mode() {
            Mode::Vjp => (
                "__pullback_",
                sh.user_pullback_type(&self.output_tangent, &self.user_tangents),
            ),
            Mode::Jvp => (
                "__differential_",
                sh.user_differential_type(&self.output_tangent, &self.user_tangents),
            ),
        };
        let header = sh.header(ident_for(&self.sig.ident, prefix), ty);
        let user = self.user_fn();
        let args = sh.call_args();
        self.maybe_receiver(quote! { #header { #user(#(#args),*) } }, receiver)
    }

    /// With `receiver`, the first parameter of the companion fns becomes `self`.
    fn maybe_receiver(&self, items: TokenStream, receiver: bool) -> TokenStream {
        if receiver {
            receiverize_all(items, &self.sig.params[0].ident)
        } else {
            items
        }
    }

    /// The companion of the other mode, derived from the registered one where the API
    /// says it follows (scalar result for a differential, scalar input for a pullback).
    fn derived(&self, sh: &Shapes) -> Option<TokenStream> {
        self.derived_companions(sh)
            .or_else(|| Some(self.missing_mode(sh)))
    }

    /// The other mode's companions when it cannot be derived: they keep the callers'
    /// companions compiling (a caller always has both), and stop with a message naming
    /// the function and the registration to add if that mode is actually run.
    fn missing_mode(&self, sh: &Shapes) -> TokenStream {
        let name = &self.sig.ident;
        let (mode, missing, attr) = match self.mode() {
            Mode::Vjp => (
                Mode::Jvp,
                "forward mode (a differential)",
                "#[derivative(of = ..., jvp)]",
            ),
            Mode::Jvp => (
                Mode::Vjp,
                "reverse mode (a pullback)",
                "#[derivative(of = ...)]",
            ),
        };
        let msg = format!("diff: `{name}` has a registered derivative for one mode only, and {missing} does not follow from it here; register it with {attr}");
        let ty = match mode {
            Mode::Vjp => sh.vjp_type(&self.output_tangent),
            Mode::Jvp => sh.jvp_type(&self.output_tangent),
        };
        let header = sh.header(names::companion(name, mode), ty);
        let args = sh.call_args();
        quote! {
            #header {
                let _ = (#(#args,)*);
                #[allow(unreachable_code)]
                (::core::panic!(#msg), |_| ::core::unreachable!())
            }
        }
    }

    fn derived_companions(&self, sh: &Shapes) -> Option<TokenStream> {
        let rt = quote!(::diff::__private);
        let n = self.sig.params.len();
        let args = sh.call_args();
        let wrt = self.sig.wrt();
        match self.mode() {
            Mode::Vjp => {
                if !is_scalar(&self.sig.output, &self.sig) {
                    return None;
                }
                let vjp = sh.callee(Mode::Vjp);
                let gs: Vec<Ident> = (0..n).map(|i| names::ident(&format!("g{i}"))).collect();
                let ds: Vec<Ident> = (0..n).map(|i| names::ident(&format!("d{i}"))).collect();
                let terms = wrt.iter().map(|i| {
                    let (g, d) = (&gs[*i], &ds[*i]);
                    quote!(#rt::dot_opt(&#g, &#d))
                });
                let ty = sh.jvp_type(&self.output_tangent);
                let header = sh.header(names::companion(&self.sig.ident, Mode::Jvp), ty);
                let user = sh.user_differential(&self.output_tangent);
                Some(quote! {
                    #header {
                        let (value, pullback) = #vjp(#(#args),*);
                        let unit = #rt::Unit::unit(&value);
                        (value, move |(#(#ds,)*)| {
                            let (#(#gs,)*) = pullback(unit);
                            let sum: f64 = 0.0 #(+ #terms)*;
                            ::core::option::Option::Some(#rt::from_f64(sum))
                        })
                    }
                    #user
                })
            }
            Mode::Jvp => {
                if wrt.is_empty() || !wrt.iter().all(|i| is_scalar_param(&self.sig, *i)) {
                    return None;
                }
                let jvp = sh.callee(Mode::Jvp);
                // One differential per scalar input: dx_i = <differential(e_i), dy>.
                let slots_out = (0..n).map(|k| {
                    if !wrt.contains(&k) {
                        return if self.sig.params[k].tangent.is_some() { quote!(::core::option::Option::None) } else { quote!(()) };
                    }
                    let x = &self.sig.params[k].ident;
                    let dirs = (0..n).map(|j| if j == k { quote!(::core::option::Option::Some(#rt::Unit::unit(&#x))) } else { quote!(::core::default::Default::default()) });
                    quote!({
                        let (_, differential) = #jvp(#(#args),*);
                        let d = differential((#(#dirs,)*));
                        ::core::option::Option::Some(#rt::from_f64(#rt::dot_opt(&d, &::core::option::Option::Some(::core::clone::Clone::clone(&seed)))))
                    })
                });
                let ty = sh.vjp_type(&self.output_tangent);
                let header = sh.header(names::companion(&self.sig.ident, Mode::Vjp), ty);
                let user = sh.user_pullback(&self.output_tangent);
                Some(quote! {
                    #header {
                        let (value, _) = #jvp(#(#args),*);
                        (value, move |seed| (#(#slots_out,)*))
                    }
                    #user
                })
            }
        }
    }

    fn free_function(&self) -> TokenStream {
        let sh = Shapes {
            sig: &self.sig,
            vis: &self.func.vis,
            in_impl: false,
        };
        let registered = self.registered(&sh, false);
        let user = self.registered_user(&sh, false);
        let public: syn::Visibility = syn::parse_quote!(pub);
        let inner = Shapes {
            sig: &self.sig,
            vis: &public,
            in_impl: false,
        };
        let derived = self.derived(&inner).map(|d| {
            let m = format_ident!("__diff_derived_{}", self.user_fn());
            let vis = &self.func.vis;
            quote! {
                #[doc(hidden)]
                #[allow(non_snake_case)]
                mod #m {
                    #[allow(unused_imports)]
                    use super::*;
                    #d
                }
                #[doc(hidden)]
                #[allow(unused_imports)]
                #vis use #m::*;
            }
        });
        quote! { #registered #user #derived }
    }

    fn type_method(&self, ty: &syn::Path) -> TokenStream {
        let receiver = self.first_param_is(ty);
        let sh = Shapes {
            sig: &self.sig,
            vis: &self.func.vis,
            in_impl: true,
        };
        let registered = self.registered(&sh, receiver);
        let user = self.registered_user(&sh, receiver);
        let derived = self.derived(&sh).map(|d| {
            let tr = format_ident!("__DiffDerived_{}", self.user_fn());
            let d = if receiver {
                receiverize_all(d, &self.sig.params[0].ident)
            } else {
                d
            };
            let (decls, bodies) = split_trait(&d);
            let vis = &self.func.vis;
            quote! {
                #[doc(hidden)]
                #[allow(non_camel_case_types)]
                #vis trait #tr { #decls }
                impl #tr for #ty { #bodies }
            }
        });
        quote! { impl #ty { #registered #user } #derived }
    }

    fn scalar_method(&self, ty: &syn::Path) -> TokenStream {
        let sh = Shapes {
            sig: &self.sig,
            vis: &syn::Visibility::Inherited,
            in_impl: true,
        };
        let registered = receiverize_all(self.registered(&sh, false), &self.sig.params[0].ident);
        let tr = format_ident!("__DiffRegistered_{}", self.user_fn());
        let (decls, bodies) = split_trait(&registered);
        let vis = &self.func.vis;
        let mut out = quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #vis trait #tr { #decls }
            impl #tr for #ty { #bodies }
        };
        if !has_std_rule(&self.sig.ident) {
            if let Some(d) = self.derived(&sh) {
                let d = receiverize_all(d, &self.sig.params[0].ident);
                let d = by_ref_receivers(d);
                let tr = format_ident!("__DiffDerived_{}", self.user_fn());
                let (decls, bodies) = split_trait(&d);
                out.extend(quote! {
                    #[doc(hidden)]
                    #[allow(non_camel_case_types)]
                    #vis trait #tr { #decls }
                    impl #tr for #ty { #bodies }
                });
            }
        }
        out
    }

    fn first_param_is(&self, ty: &syn::Path) -> bool {
        let want = ty.segments.last().map(|s| s.ident.to_string());
        match self.func.sig.inputs.first() {
            Some(syn::FnArg::Typed(t)) => match &*t.ty {
                syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()) == want,
                _ => false,
            },
            _ => false,
        }
    }
}

/// Whether `ty` is a scalar: f32, f64 or a scalar generic parameter.
fn is_scalar(ty: &TokenStream, sig: &FnSig) -> bool {
    let s = ty.to_string();
    s == "f64" || s == "f32" || sig.roles.scalars.contains(&s)
}

fn is_scalar_param(sig: &FnSig, i: usize) -> bool {
    sig.params[i]
        .tangent
        .as_ref()
        .is_some_and(|t| is_scalar(t, sig))
}

/// Rewrites companion fns so that their first parameter `x: T` is the receiver `self`
/// (and uses of `x` in their bodies read `self`).
fn receiverize_all(items: TokenStream, first: &TokenStream) -> TokenStream {
    let file: syn::File = match syn::parse2(items.clone()) {
        Ok(f) => f,
        Err(_) => return items,
    };
    file.items
        .into_iter()
        .map(|item| match item {
            syn::Item::Fn(f) => receiverize(f.to_token_stream(), first),
            other => other.to_token_stream(),
        })
        .collect()
}

/// One companion fn with its first parameter made the receiver.
fn receiverize(item: TokenStream, first: &TokenStream) -> TokenStream {
    let Ok(mut f) = syn::parse2::<syn::ItemFn>(item.clone()) else {
        return item;
    };
    if let Some(syn::FnArg::Typed(_)) = f.sig.inputs.first() {
        f.sig.inputs[0] = syn::parse_quote!(self);
    }
    let body = rename_ident(f.block.to_token_stream(), &first.to_string());
    let (attrs, vis, sig) = (&f.attrs, &f.vis, &f.sig);
    quote! { #(#attrs)* #vis #sig #body }
}

/// `ts` with every identifier named `from` replaced by `self`.
fn rename_ident(ts: TokenStream, from: &str) -> TokenStream {
    map_idents(ts, &|i| {
        (i == from).then(|| proc_macro2::TokenTree::Ident(Ident::new("self", i.span())))
    })
}

/// Replaces identifiers, at any depth, by what `f` gives for them (kept when `None`).
fn map_idents(
    ts: TokenStream,
    f: &dyn Fn(&Ident) -> Option<proc_macro2::TokenTree>,
) -> TokenStream {
    ts.into_iter()
        .map(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => f(&i).unwrap_or(proc_macro2::TokenTree::Ident(i)),
            proc_macro2::TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), map_idents(g.stream(), f));
                ng.set_span(g.span());
                proc_macro2::TokenTree::Group(ng)
            }
            other => other,
        })
        .collect()
}

/// `self` receivers become `&self` (with a copy of `*self` for the body), so derived
/// methods rank below by-value registrations in method resolution.
fn by_ref_receivers(items: TokenStream) -> TokenStream {
    let Ok(file) = syn::parse2::<syn::File>(items.clone()) else {
        return items;
    };
    // Calls between these methods keep passing the reference.
    let siblings: Vec<String> = file
        .items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    file.items
        .into_iter()
        .map(|item| match item {
            syn::Item::Fn(mut f) => {
                if let Some(syn::FnArg::Receiver(r)) = f.sig.inputs.first_mut() {
                    *r = syn::parse_quote!(&self);
                    // The linear map holds copies: it does not borrow `self`.
                    if let syn::ReturnType::Type(_, ty) = &mut f.sig.output {
                        if let syn::Type::Tuple(t) = &mut **ty {
                            for e in t.elems.iter_mut() {
                                if let syn::Type::ImplTrait(it) = e {
                                    it.bounds
                                        .push(syn::TypeParamBound::Verbatim(quote!(use<Self>)));
                                }
                            }
                        }
                    }
                    let body = rename_self_uses(f.block.to_token_stream());
                    let body = call_siblings_by_ref(body, &siblings);
                    let (attrs, vis, sig) = (&f.attrs, &f.vis, &f.sig);
                    quote! { #(#attrs)* #vis #sig #body }
                } else {
                    f.to_token_stream()
                }
            }
            other => other.to_token_stream(),
        })
        .collect()
}

/// In a `&self` body, the scalar value is `*self`.
fn rename_self_uses(ts: TokenStream) -> TokenStream {
    map_idents(ts, &|i| {
        (i == "self").then(|| {
            proc_macro2::TokenTree::Group(proc_macro2::Group::new(
                proc_macro2::Delimiter::Parenthesis,
                quote!(*self),
            ))
        })
    })
}

/// Splits fn items into trait declarations (signatures) and impl bodies (no visibility).
fn split_trait(items: &TokenStream) -> (TokenStream, TokenStream) {
    let Ok(file) = syn::parse2::<syn::File>(items.clone()) else {
        return (TokenStream::new(), items.clone());
    };
    let mut decls = TokenStream::new();
    let mut bodies = TokenStream::new();
    for item in file.items {
        if let syn::Item::Fn(f) = item {
            let (sig, block) = (&f.sig, &f.block);
            let attrs: Vec<&syn::Attribute> = f
                .attrs
                .iter()
                .filter(|a| !a.path().is_ident("inline"))
                .collect();
            decls.extend(quote! { #(#attrs)* #sig; });
            // In the impl, `Self` is the type itself, not a parameter to capture.
            let impl_sig: TokenStream = sig
                .to_token_stream()
                .to_string()
                .replace("use < Self >", "use < >")
                .parse()
                .unwrap_or_else(|_| sig.to_token_stream());
            bodies.extend(quote! { #(#attrs)* #[inline] #impl_sig #block });
        }
    }
    (decls, bodies)
}

/// `Self::sibling((*self))` becomes `Self::sibling(self)` for the `&self` methods.
fn call_siblings_by_ref(ts: TokenStream, siblings: &[String]) -> TokenStream {
    let tokens: Vec<proc_macro2::TokenTree> = ts.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (i, tt) in tokens.iter().enumerate() {
        match tt {
            proc_macro2::TokenTree::Group(g) => {
                let after_sibling = i >= 1
                    && matches!(&tokens[i - 1], proc_macro2::TokenTree::Ident(id) if siblings.iter().any(|s| id == s));
                let stream =
                    if after_sibling && g.delimiter() == proc_macro2::Delimiter::Parenthesis {
                        let inner = g.stream().to_string().replace(' ', "");
                        if inner == "(*self)" {
                            quote!(self)
                        } else {
                            g.stream()
                        }
                    } else {
                        call_siblings_by_ref(g.stream(), siblings)
                    };
                let mut ng = proc_macro2::Group::new(g.delimiter(), stream);
                ng.set_span(g.span());
                out.push(proc_macro2::TokenTree::Group(ng));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}
