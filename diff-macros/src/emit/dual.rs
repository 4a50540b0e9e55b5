//! The dual companion `__vjp_dual` (docs/ARCHITECTURE.md, "Second order"): the reverse
//! sweep run on dual numbers, which `hessian!`, `second_derivative!` and a caller's own
//! dual companion call.
//!
//! - A function generic over its scalar (`T: Float`) runs on dual numbers as it is: its
//!   dual companion is its `__vjp`, under the other name. So does one generic over the
//!   types of its differentiated parameters (`fn pick<T: Differentiable>(a: T, ..)`),
//!   at the dual type its caller gives ([`Same`](diff-core `lift.rs`)).
//! - A function written for `f64` (or `f32`) takes its differentiated parameters as
//!   anything [`LiftTo`](diff-core `lift.rs`) converts to the dual type (`f64` or
//!   `Dual<f64>`, `&[f64]` or `&[Dual<f64>]`), converts them, and runs the body's IR
//!   rewritten by `lifting.rs`.
//! - Where that is not possible (a parameter of another type, a construct `lifting.rs`
//!   refuses), the companion keeps the same signature and stops the build where it is
//!   instantiated, with the reason: only a use of second order fails, never the crate.
use crate::parse::signature::FnSig;
use crate::parse::types::mentions;
use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};

/// The message saying that function `name` has no second order, and why.
pub fn no_second_order(name: &Ident, why: &str) -> String {
    format!("diff: second order (hessian!, second_derivative!) of `{name}` is not available: {why}")
}

/// How the dual companion takes one parameter.
enum Taken {
    /// As the function does (not differentiated).
    AsIs,
    /// By value, converted to the lifted type (`f64`, `Vec<f64>`, `[f64; N]`).
    Value(TokenStream),
    /// By reference, converted to a `Cow` of the lifted referent (`&[f64]`, `&Vec<f64>`,
    /// `&[f64; N]`, `&f64`).
    Ref(syn::Lifetime, TokenStream),
    /// `&mut` to the lifted referent (`&mut f64`, `&mut [f64; N]`, `&mut Vec<f64>`): the
    /// caller passes a dual one.
    Mut(syn::Lifetime, TokenStream),
    /// As the function does, though differentiated: a type the companion cannot lift.
    Any,
    /// A type parameter of the function (`a: T`), as [`Same<T>`](diff-core `lift.rs`):
    /// the caller's argument, whatever its type (a dual number, a struct's twin), is `T`.
    Same(Ident),
}

/// The dual companion's signature for a function written for a float type.
pub struct DualSig<'a> {
    sig: &'a FnSig,
    /// `f64` or `f32`; `None` when the parameters mix them or have neither.
    scalar: Option<Ident>,
    taken: Vec<Taken>,
    /// The structs of the signature and body with a dual twin of the scalar.
    twins: Vec<String>,
    /// Whether the receiver is taken as the struct's twin, `this` (the companion for a
    /// twin receiver, `__vjp_dual_self_m`).
    twin_receiver: bool,
    /// Whether the differentiated parameters mix `f64` and `f32`: dual numbers of one
    /// cannot hold the other's, so there is no second order.
    mixed: bool,
}

/// `ts` with the float type `scalar` replaced by its dual numbers.
pub fn lift_tokens(ts: &TokenStream, scalar: &Ident) -> TokenStream {
    lift_tokens_with(ts, scalar, &[])
}

/// `ts` with the float type `scalar` replaced by its dual numbers and the structs named
/// in `twins` by their dual twins (`twin.rs`); `Self` stands for the struct named last
/// when the list ends with `Self`.
pub fn lift_tokens_with(ts: &TokenStream, scalar: &Ident, twins: &[String]) -> TokenStream {
    twins_lifted(ts, Some(scalar), scalar, twins)
}

/// `ts` with the structs named in `twins` replaced by their dual twins of the scalar
/// `twin_scalar` (and, with `scalar`, that float type by its dual numbers). A struct
/// named by itself (`S`, imported by name from wherever it is defined) becomes
/// `<S as Lift<f64>>::Lifted`, its twin reached through the name in scope; at the end of
/// a path (`m::S`), the twin's own name in that module (`m::__DiffDualS`).
pub fn twins_lifted(
    ts: &TokenStream,
    scalar: Option<&Ident>,
    twin_scalar: &Ident,
    twins: &[String],
) -> TokenStream {
    let own = match twins {
        [.., own, last] if last == "Self" => Some(own.as_str()),
        _ => None,
    };
    let tokens: Vec<TokenTree> = ts.clone().into_iter().collect();
    let colon = |k: Option<usize>| {
        k.and_then(|k| tokens.get(k))
            .is_some_and(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ':'))
    };
    let mut out = Vec::new();
    for (k, tt) in tokens.iter().enumerate() {
        match tt {
            TokenTree::Ident(i) if scalar.is_some_and(|s| i == s) => {
                out.extend(quote!(::diff::__private::Dual<#i>))
            }
            TokenTree::Ident(i) if twins.iter().any(|t| i == t) => {
                let name = match own {
                    Some(own) if i == "Self" => own.to_string(),
                    _ => i.to_string(),
                };
                let in_path = colon(k.checked_sub(1)) || colon(Some(k + 1));
                if in_path {
                    out.push(TokenTree::Ident(crate::twin::ident(&name, i.span())));
                } else {
                    let ty = Ident::new(&name, i.span());
                    let ty = if i == "Self" {
                        quote!(Self)
                    } else {
                        quote!(#ty)
                    };
                    out.extend(quote_spanned! {i.span()=>
                        <#ty as ::diff::__private::Lift<#twin_scalar>>::Lifted
                    });
                }
            }
            TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(
                    g.delimiter(),
                    twins_lifted(&g.stream(), scalar, twin_scalar, twins),
                );
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

/// Whether `ty` is the scalar, a `Vec` of it or an array of it.
pub fn is_floats(ty: &syn::Type, scalar: &Ident) -> bool {
    is_lifted_type(ty, scalar, &[])
}

/// Whether `ty` is the scalar or a struct with a twin named in `twins` (`S`, `m::S`), a
/// `Vec` or an array of one, a `Vec` or array of `Vec`s or arrays of the scalar (the
/// rows of a matrix, `Vec<Vec<f64>>`, `[[f64; 3]; 3]`), or an `Option` of floats (not
/// of a struct: a caller's `Some(s)` would not be converted to the twin).
fn is_lifted_type(ty: &syn::Type, scalar: &Ident, twins: &[String]) -> bool {
    is_lifted_element(ty, scalar, twins)
        || crate::parse::types::element_type(ty)
            .is_some_and(|e| is_row(e, scalar) || is_lifted_element(e, scalar, twins))
        || crate::parse::types::type_argument(ty, "Option")
            .is_some_and(|e| is_lifted_type(e, scalar, &[]))
}

/// Whether `ty` is a tuple of the scalar, of structs with twins, or of `Vec`s or arrays of
/// them (`(f64, f64)`, `(Vec<f64>, f64)`), beside integers and `bool`s (`(f64, usize)`).
fn is_tuple_of(ty: &syn::Type, scalar: &Ident, twins: &[String]) -> bool {
    matches!(ty, syn::Type::Tuple(t)
    if t.elems.iter().any(|e| is_lifted_type(e, scalar, twins))
        && t.elems.iter().all(|e| {
            is_lifted_type(e, scalar, twins) || crate::parse::types::is_discrete(e)
        }))
}

/// Whether `ty` is a `Vec` or an array of the scalar (the lifted conversions,
/// diff-core `lift.rs`, go one level deeper than that), or a pair or triple of it.
fn is_row(ty: &syn::Type, scalar: &Ident) -> bool {
    crate::parse::types::element_type(ty).is_some_and(|e| is_lifted_element(e, scalar, &[]))
        || matches!(ty, syn::Type::Tuple(t) if (2..=3).contains(&t.elems.len())
            && t.elems.iter().all(|e| is_lifted_element(e, scalar, &[])))
}

/// Whether `ty` is the scalar or a struct with a twin named in `twins`.
fn is_lifted_element(ty: &syn::Type, scalar: &Ident, twins: &[String]) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.is_ident(scalar)
                || p.path
                    .segments
                    .last()
                    .is_some_and(|s| s.arguments.is_none() && twins.iter().any(|t| s.ident == t))
        }
        _ => false,
    }
}

impl<'a> DualSig<'a> {
    pub fn of(sig: &'a FnSig) -> Self {
        let wrt = sig.wrt();
        let decl_of = |i: usize| &sig.params[i].decl;
        // `Self` names the block's struct, when it has a twin.
        let own = sig.self_twin.as_ref();
        let has = |s: &str| {
            wrt.iter().any(|i| {
                mentions(decl_of(*i), s)
                    || sig.twins.iter().any(|(n, t)| {
                        t.scalar == s
                            && (mentions(decl_of(*i), n)
                                || (own == Some(n) && mentions(decl_of(*i), "Self")))
                    })
            })
        };
        // (Parameters mixing them: the result's, for a signature its callers' dual
        // companions can call, taking the others as they are; it stops, `why_not`.)
        let mixed = has("f64") && has("f32");
        let scalar = match (has("f64"), has("f32")) {
            (true, false) => Some(format_ident!("f64")),
            (false, true) => Some(format_ident!("f32")),
            (true, true) if mentions(&sig.output, "f32") && !mentions(&sig.output, "f64") => {
                Some(format_ident!("f32"))
            }
            (true, true) => Some(format_ident!("f64")),
            _ => None,
        };
        let twins: Vec<String> = sig
            .twins
            .iter()
            .filter(|(_, t)| scalar.as_ref().is_some_and(|s| s == t.scalar))
            .map(|(n, _)| n.clone())
            .collect();
        let mut twins = twins;
        if let Some(own) = sig.self_twin.as_ref().filter(|n| twins.contains(n)) {
            // `Self` is the struct (not generic: it has a twin), named last.
            twins.retain(|n| n != own);
            twins.push(own.clone());
            twins.push("Self".to_string());
        }
        let twins = twins;
        let is_floats = |ty: &syn::Type, s: &Ident| is_lifted_type(ty, s, &twins);
        let lift_tokens = |ts: &TokenStream, s: &Ident| lift_tokens_with(ts, s, &twins);
        let mut taken: Vec<Taken> = (0..sig.params.len())
            .map(|i| {
                let p = &sig.params[i];
                if !wrt.contains(&i) || is_receiver(p) {
                    return Taken::AsIs;
                }
                let (Some(s), Some(ty)) = (&scalar, p.declared_type()) else {
                    return Taken::Any;
                };
                match &ty {
                    syn::Type::Reference(r) if r.mutability.is_some() => {
                        match (
                            &r.lifetime,
                            is_floats(&r.elem, s) || is_slice_of(&r.elem, s, &[]),
                        ) {
                            (Some(lt), true) => {
                                let inner = &*r.elem;
                                Taken::Mut(lt.clone(), lift_tokens(&quote!(#inner), s))
                            }
                            _ => Taken::Any,
                        }
                    }
                    syn::Type::Reference(r) => {
                        let inner = &*r.elem;
                        let ok = is_floats(inner, s)
                            || is_slice_of(inner, s, &twins)
                            || is_generic_at(inner, s, &sig.dual_generic_structs);
                        match (&r.lifetime, ok) {
                            (Some(lt), true) => {
                                Taken::Ref(lt.clone(), lift_tokens(&quote!(#inner), s))
                            }
                            _ => Taken::Any,
                        }
                    }
                    t if is_floats(t, s)
                        || is_generic_at(t, s, &sig.dual_generic_structs)
                        || is_tuple_of(t, s, &twins) =>
                    {
                        Taken::Value(lift_tokens(&quote!(#t), s))
                    }
                    _ => Taken::Any,
                }
            })
            .collect();
        if scalar.is_none() {
            // A function generic over a type of its own (`fn pick<T: Differentiable>(a:
            // T, ..)`): its parameters of that type take whatever the caller gives.
            for (i, p) in sig.params.iter().enumerate() {
                if let Some(t) = p
                    .declared_type()
                    .as_ref()
                    .and_then(|t| type_parameter(t, sig))
                {
                    taken[i] = Taken::Same(t);
                }
            }
        }
        DualSig {
            sig,
            scalar,
            taken,
            twins,
            twin_receiver: false,
            mixed,
        }
    }

    /// Whether the function is generic over the types of its differentiated parameters
    /// (`fn pick<T: Differentiable>(a: T, b: T, first: bool) -> T`), not over a float
    /// type: its `__vjp` runs on dual numbers as it is (at `T = Dual<f64>`, or a struct's
    /// twin), and the dual companion calls it.
    pub fn forwards(&self) -> bool {
        self.scalar.is_none()
            && !self.sig.has_receiver()
            && self.taken.iter().any(|t| matches!(t, Taken::Same(_)))
            && self
                .taken
                .iter()
                .all(|t| matches!(t, Taken::Same(_) | Taken::AsIs))
    }

    /// For each parameter, whether it is taken as a `Same` ([`DualSig::forwards`]).
    pub fn same_params(&self) -> Vec<bool> {
        self.taken
            .iter()
            .map(|t| matches!(t, Taken::Same(_)))
            .collect()
    }

    /// For a method a trait marks, the signature of its companion taking the receiver
    /// as its struct's twin, as the trait declares it (`Self`'s twin, `<Self as
    /// Lift<f64>>::Lifted`), for a method `twin::trait_twin_receiver` takes, of float
    /// type `scalar`: implementations for a struct with a twin define it
    /// ([`DualSig::of_twin_receiver`] gives the same signature there).
    pub fn of_declared_twin_receiver(sig: &'a FnSig, scalar: &str) -> Self {
        let scalar = format_ident!("{}", scalar);
        let mut ds = DualSig::of(sig);
        ds.scalar = Some(scalar.clone());
        ds.twins = vec!["Self".to_string()];
        ds.taken[0] = Taken::Value(quote!(<Self as ::diff::__private::Lift<#scalar>>::Lifted));
        ds.twin_receiver = true;
        ds
    }

    /// The signature of the companion of a method taking its receiver as the dual twin
    /// of the `impl` block's struct (`twin.rs`): `this: __DiffDualS` for `self` and
    /// `&self`, `this: &mut __DiffDualS` for `&mut self`.
    pub fn of_twin_receiver(sig: &'a FnSig) -> Option<Self> {
        let own = sig.self_twin.as_ref()?;
        let (_, twin) = sig.twins.iter().find(|(n, _)| n == own)?;
        let mut ds = DualSig::of(sig);
        match &ds.scalar {
            // The receiver alone is differentiated: the twin's scalar.
            None if sig.wrt() == [0] => {
                ds.scalar = Some(format_ident!("{}", twin.scalar));
                ds.twins = sig
                    .twins
                    .iter()
                    .filter(|(n, t)| t.scalar == twin.scalar && n != own)
                    .map(|(n, _)| n.clone())
                    .chain([own.clone(), "Self".to_string()])
                    .collect();
            }
            Some(s) if s == twin.scalar => {}
            _ => return None,
        }
        if !ds.twins.contains(own) || !sig.wrt().contains(&0) {
            return None;
        }
        // (A method of the struct's `impl`: `Self` is the struct, by whatever name.)
        let twin_scalar = Ident::new(twin.scalar, sig.ident.span());
        let ty = quote!(<Self as ::diff::__private::Lift<#twin_scalar>>::Lifted);
        ds.taken[0] = match &sig.params[0].mut_lifetime {
            Some(lt) => Taken::Mut(lt.clone(), quote!(#ty)),
            None => Taken::Value(quote!(#ty)),
        };
        ds.twin_receiver = true;
        Some(ds)
    }

    /// The scalar, when every differentiated parameter can be lifted (the receiver is
    /// taken as it is, a constant) and so can the result (`()` for a function with
    /// `&mut` parameters).
    pub fn liftable(&self) -> Option<&Ident> {
        let all = !self.mixed && self.taken.iter().all(|t| !matches!(t, Taken::Any));
        let out_ok = self.scalar.as_ref().is_some_and(|s| {
            let out: TokenStream = self.sig.output.clone();
            syn::parse2::<syn::Type>(out).is_ok_and(|t| {
                output_liftable(&t, s, &self.twins, &self.sig.dual_generic_structs)
                    || (!self.sig.mutated().is_empty()
                        && matches!(&t, syn::Type::Tuple(tt) if tt.elems.is_empty()))
            })
        });
        (all && out_ok).then_some(self.scalar.as_ref()).flatten()
    }

    /// The parameters whose type is built of floats: the converted ones, and the others
    /// of such a type (`scale: f64` left out with `wrt`).
    pub fn float_params(&self) -> Vec<usize> {
        let Some(s) = &self.scalar else {
            return Vec::new();
        };
        (0..self.sig.params.len())
            .filter(|i| {
                !matches!(self.taken[*i], Taken::AsIs | Taken::Any)
                    || self.sig.params[*i]
                        .declared_type()
                        .is_some_and(|t| match &t {
                            syn::Type::Reference(r) => {
                                is_floats(&r.elem, s) || is_slice_of(&r.elem, s, &self.twins)
                            }
                            t => is_floats(t, s),
                        })
            })
            .collect()
    }

    /// Whether the receiver is taken as the struct's twin ([`DualSig::of_twin_receiver`]).
    pub fn is_twin_receiver(&self) -> bool {
        self.twin_receiver
    }

    /// The structs of the signature and body with a dual twin of the scalar.
    pub fn twins(&self) -> &[String] {
        &self.twins
    }

    /// For each parameter, the struct with a twin it holds (`s: S`, `s: &S`, `s: &mut
    /// S`), when it is taken dual.
    pub fn param_structs(&self) -> Vec<Option<String>> {
        self.twin_in_params(false, Some)
    }

    /// For each parameter, the struct with a twin its elements are (`ps: &[S]`, `Vec<S>`,
    /// `&[S; N]`), whether it is taken dual or as it is (a collection a body clones and
    /// gives to a function as `&mut` is converted to the twins then).
    pub fn param_elements(&self) -> Vec<Option<String>> {
        self.twin_in_params(true, |ty| match ty {
            syn::Type::Slice(s) => Some(*s.elem),
            other => crate::parse::types::element_type(&other).cloned(),
        })
    }

    /// For each parameter taken dual (or as it is too, `as_is`), the struct with a twin
    /// that `part` of its type (behind references) names.
    fn twin_in_params(
        &self,
        as_is: bool,
        part: impl Fn(syn::Type) -> Option<syn::Type>,
    ) -> Vec<Option<String>> {
        self.sig
            .params
            .iter()
            .zip(&self.taken)
            .map(|(p, t)| {
                if matches!(t, Taken::Any) || matches!(t, Taken::AsIs) && !as_is {
                    return None;
                }
                let mut ty = p.declared_type()?;
                while let syn::Type::Reference(r) = ty {
                    ty = *r.elem;
                }
                let syn::Type::Path(tp) = part(ty)? else {
                    return None;
                };
                let last = tp.path.segments.last()?;
                let name = last.ident.to_string();
                (last.arguments.is_none() && self.twins.contains(&name)).then_some(name)
            })
            .collect()
    }

    fn lift(&self, ts: &TokenStream) -> TokenStream {
        match &self.scalar {
            Some(s) => lift_tokens_with(ts, s, &self.twins),
            None => ts.clone(),
        }
    }

    /// The companion's header (`vis fn name<..>(..) -> (value, impl FnOnce(..) -> ..)`):
    /// a converted parameter takes the lifted type (a `Cow` of it for a reference), which
    /// callers convert their arguments to ([`LiftTo`](diff-core `lift.rs`), inferred).
    pub fn header(
        &self,
        vis: &syn::Visibility,
        name: Ident,
        output_tangent: &TokenStream,
    ) -> TokenStream {
        let sig = self.sig;
        // A companion that stops asks of its type parameters only what its signature
        // needs: a caller's dual companion may pass a struct's dual twin, which
        // implements Differentiable but not the user's traits (`S: Shape`).
        let relaxed = (self.liftable().is_none() && !self.forwards())
            .then(|| only_differentiable(&sig.generics));
        let (gen, _, wher) = relaxed.as_ref().unwrap_or(&sig.generics).split_for_impl();
        let decls = sig
            .params
            .iter()
            .zip(&self.taken)
            .enumerate()
            .map(|(i, (p, t))| {
                let id = if i == 0 && self.twin_receiver {
                    quote!(this)
                } else {
                    p.ident.clone()
                };
                match t {
                    Taken::AsIs | Taken::Any => p.decl.clone(),
                    Taken::Value(ty) => quote!(#id: #ty),
                    Taken::Ref(lt, ty) => quote!(#id: ::std::borrow::Cow<#lt, #ty>),
                    Taken::Mut(lt, ty) => quote!(#id: &#lt mut #ty),
                    Taken::Same(t) => quote!(#id: ::diff::__private::Same<#t>),
                }
            });
        let caps = sig.captures();
        let out = self.lift(&sig.output);
        let (seed, slots) = self.linear_map_types(output_tangent);
        quote! {
            #[doc(hidden)]
            #[inline]
            #[allow(dead_code, unreachable_code, unused_mut, unused_variables, unused_parens, non_snake_case, clippy::all, clippy::pedantic)]
            #vis fn #name #gen (#(#decls),*) -> (#out, impl ::core::ops::FnOnce(#seed) -> (#(#slots,)*) #caps) #wher
        }
    }

    /// The type of the dual companion's pullback boxed, which a recursive call's takes
    /// (`emit/primal.rs`, `Recursion`).
    pub fn boxed_pullback(&self, output_tangent: &TokenStream) -> TokenStream {
        let (seed, slots) = self.linear_map_types(output_tangent);
        let caps = self.sig.dyn_lifetime();
        quote!(::std::boxed::Box<dyn ::core::ops::FnOnce(#seed) -> (#(#slots,)*) #caps>)
    }

    /// The seed its pullback takes and the slots it returns: lifted, but for a receiver
    /// taken as it is.
    fn linear_map_types(&self, output_tangent: &TokenStream) -> (TokenStream, Vec<TokenStream>) {
        let sig = self.sig;
        let seed = self.lift(output_tangent);
        // A receiver taken as it is (a constant) keeps its own tangent's slot, which its
        // callers accumulate into the plain receiver's.
        let plain_receiver = sig.has_receiver() && !self.twin_receiver;
        let slots = sig
            .slots()
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if i == 0 && plain_receiver {
                    s.clone()
                } else {
                    self.lift(s)
                }
            })
            .collect::<Vec<_>>();
        let mutated = sig.mutated_slots();
        let seed = if mutated.is_empty() {
            seed
        } else {
            let m = mutated.iter().map(|s| self.lift(s));
            quote!((::core::option::Option<#seed>, #(#m,)*))
        };
        (seed, slots)
    }

    /// The statements giving a parameter taken as a `Cow` the reference the body reads.
    pub fn conversions(&self) -> TokenStream {
        self.sig
            .params
            .iter()
            .zip(&self.taken)
            .map(|(p, t)| {
                let id = &p.ident;
                match t {
                    Taken::Ref(_, ty) => {
                        let owner = format_ident!("__lifted_{}", id.to_string());
                        quote! {
                            let #owner = #id;
                            let #id: &#ty = &*#owner;
                        }
                    }
                    Taken::AsIs
                    | Taken::Value(_)
                    | Taken::Mut(..)
                    | Taken::Any
                    | Taken::Same(_) => TokenStream::new(),
                }
            })
            .collect()
    }

    /// A body that stops, saying why there is no second order of the function. (At run
    /// time: the companion of a function that is not generic would be compiled, and a
    /// compile-time stop would fire, wherever the function is, used or not.)
    pub fn stop(&self, why: &str) -> TokenStream {
        let message = no_second_order(&self.sig.ident, why);
        quote! {{
            #[allow(unreachable_code)]
            (::core::panic!("{}", #message), move |_| ::core::unreachable!())
        }}
    }

    /// Why the signature cannot be lifted.
    pub fn why_not(&self) -> String {
        if self.mixed {
            return "its differentiated parameters mix f64 and f32 (dual numbers of one cannot hold the other's); leave those of one type out with `wrt`, or convert them in the caller".into();
        }
        if self.scalar.is_none() {
            return "its differentiated parameters are not all of one float type, f64 or f32"
                .into();
        }
        match self.taken.iter().position(|t| matches!(t, Taken::Any)) {
            Some(i) => format!(
                "its parameter `{}` is not a float, a tuple, Vec or array of floats, a struct of the crate holding them, or a reference to one",
                self.sig.params[i].ident
            ),
            None => "its result is not a float, a Vec, array or tuple of floats".into(),
        }
    }
}

/// For a function generic over its scalar that converts it to a float type (`T:
/// Into<f64>`, `let x: f64 = p.into()`): why it has no second order (dual numbers would
/// lose their derivative in the float), and its generics without those bounds, for a
/// dual companion that stops with the reason.
pub fn converts_scalar(generics: &syn::Generics) -> Option<(String, syn::Generics)> {
    fn converting(b: &syn::TypeParamBound) -> bool {
        let syn::TypeParamBound::Trait(t) = b else {
            return false;
        };
        let Some(last) = t.path.segments.last() else {
            return false;
        };
        let float = |ty: &syn::Type| matches!(ty, syn::Type::Path(p) if p.path.is_ident("f64") || p.path.is_ident("f32"));
        (last.ident == "Into" || last.ident == "AsPrimitive")
            && matches!(&last.arguments, syn::PathArguments::AngleBracketed(a)
                if a.args.iter().any(|g| matches!(g, syn::GenericArgument::Type(ty) if float(ty))))
    }
    // Drops the converting bounds of `bounds`, keeping the first seen in `found`.
    fn cut(
        bounds: &mut syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>,
        found: &mut Option<String>,
    ) {
        if let Some(b) = bounds.iter().find(|b| converting(b)) {
            found.get_or_insert_with(|| quote!(#b).to_string());
        }
        *bounds = bounds.iter().filter(|b| !converting(b)).cloned().collect();
    }
    let mut g = generics.clone();
    let mut found = None;
    for param in g.type_params_mut() {
        cut(&mut param.bounds, &mut found);
    }
    if let Some(w) = &mut g.where_clause {
        for predicate in w.predicates.iter_mut() {
            if let syn::WherePredicate::Type(t) = predicate {
                cut(&mut t.bounds, &mut found);
            }
        }
        w.predicates = w
            .predicates
            .iter()
            .filter(|p| !matches!(p, syn::WherePredicate::Type(t) if t.bounds.is_empty()))
            .cloned()
            .collect();
    }
    let bound = found?.replace(' ', "");
    Some((
        format!("it converts its scalar type to a float (`{bound}`), where dual numbers would lose their derivative; compute in the scalar type itself (`T::from_f64(c).unwrap()` for constants)"),
        g,
    ))
}

/// `generics` with each type parameter's bounds, and those the `where` clause puts on
/// them, cut to `Differentiable`, `Sized` and `?Sized` (a stopping companion's body asks
/// nothing more of them). What the clause asks of `Self` stays.
fn only_differentiable(generics: &syn::Generics) -> syn::Generics {
    fn keep(
        bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>,
    ) -> syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]> {
        bounds
            .iter()
            .filter(|b| match b {
                syn::TypeParamBound::Trait(t) => {
                    matches!(t.modifier, syn::TraitBoundModifier::Maybe(_))
                        || t.path
                            .segments
                            .last()
                            .is_some_and(|s| s.ident == "Differentiable" || s.ident == "Sized")
                }
                _ => true,
            })
            .cloned()
            .collect()
    }
    let mut g = generics.clone();
    for param in g.type_params_mut() {
        param.bounds = keep(&param.bounds);
    }
    if let Some(w) = &mut g.where_clause {
        for predicate in w.predicates.iter_mut() {
            if let syn::WherePredicate::Type(t) = predicate {
                if !matches!(&t.bounded_ty, syn::Type::Path(p) if p.path.is_ident("Self")) {
                    t.bounds = keep(&t.bounds);
                }
            }
        }
    }
    g
}

/// Whether `ty` is a slice of the scalar, of its rows (`[f64]`, `[Vec<f64>]`,
/// `[[f64; 3]]`, `[(f64, f64)]`) or of a struct with a twin named in `twins` (`[Point]`).
/// For a function generic over its scalar `T`, the parameters its dual companion takes
/// as a `Cow` of what they borrow: `&[T]`, `&Vec<T>`, `&[T; N]` (with the lifetime and
/// that type). The companion runs at `T = Dual<f64>`, and a caller may hold plain floats
/// there (captured data, `|m| nll(m, &data)`), which the `Cow` owns converted (`LiftTo`).
pub fn generic_borrows(sig: &FnSig) -> Vec<Option<(syn::Lifetime, syn::Type)>> {
    // `[T]`, `Vec<T>` or `[T; N]` for a scalar `T` of the function.
    let collection = |ty: &syn::Type| {
        sig.roles.scalars.iter().any(|t| {
            let t = format_ident!("{}", t);
            matches!(ty, syn::Type::Slice(sl) if is_floats(&sl.elem, &t))
                || crate::parse::types::element_type(ty).is_some_and(|e| is_floats(e, &t))
        })
    };
    sig.params
        .iter()
        .map(|p| match p.declared_type()? {
            syn::Type::Reference(r) if r.mutability.is_none() && collection(&r.elem) => {
                Some((r.lifetime.clone()?, (*r.elem).clone()))
            }
            _ => None,
        })
        .collect()
}

/// The parameters and the result of the dual companion of a method of a trait generic
/// over its scalars (`FnSig::trait_scalars`): each scalar `K` they name as its dual
/// numbers, `<K as DualOf>::Dual` ([`DualOf`](diff-core `lift.rs`)), which an
/// implementation for `f64` takes as `Dual<f64>`; with the bounds that asks.
pub fn at_trait_duals(
    sig: &FnSig,
    decls: Vec<TokenStream>,
    out: TokenStream,
) -> (Vec<TokenStream>, TokenStream, Vec<syn::WherePredicate>) {
    let scalars: Vec<Ident> = sig
        .trait_scalars
        .iter()
        .map(|s| format_ident!("{}", s))
        .collect();
    fn swap(ts: TokenStream, scalars: &[Ident]) -> TokenStream {
        // (What `+ use<..>` captures names the type parameters themselves.)
        let mut in_use = false;
        let mut after_use = false;
        ts.into_iter()
            .map(|t| {
                match &t {
                    TokenTree::Ident(id) if id == "use" => after_use = true,
                    TokenTree::Punct(p) if p.as_char() == '<' && after_use => in_use = true,
                    TokenTree::Punct(p) if p.as_char() == '>' && in_use => {
                        (in_use, after_use) = (false, false)
                    }
                    _ => {}
                }
                match t {
                    TokenTree::Ident(id) if scalars.contains(&id) && !in_use => {
                        quote!(<#id as ::diff::__private::DualOf>::Dual)
                    }
                    TokenTree::Group(g) => {
                        let mut n =
                            proc_macro2::Group::new(g.delimiter(), swap(g.stream(), scalars));
                        n.set_span(g.span());
                        TokenTree::Group(n).into()
                    }
                    t => t.into(),
                }
            })
            .collect()
    }
    let named: Vec<&Ident> = scalars
        .iter()
        .filter(|s| {
            decls
                .iter()
                .chain([&out])
                .any(|d| mentions(d, &s.to_string()))
        })
        .collect();
    let decls = decls
        .into_iter()
        .map(|d| {
            // (The parameter's name stays: only its type changes.)
            let tokens: Vec<TokenTree> = d.into_iter().collect();
            match tokens
                .iter()
                .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ':'))
            {
                Some(colon) => {
                    let (pat, ty) = tokens.split_at(colon + 1);
                    let pat: TokenStream = pat.iter().cloned().collect();
                    let ty = swap(ty.iter().cloned().collect(), &scalars);
                    quote!(#pat #ty)
                }
                None => tokens.into_iter().collect(),
            }
        })
        .collect();
    let wher = named
        .iter()
        .map(|s| syn::parse_quote!(#s: ::diff::__private::DualOf))
        .collect();
    (decls, swap(out, &scalars), wher)
}

fn is_slice_of(ty: &syn::Type, scalar: &Ident, twins: &[String]) -> bool {
    matches!(ty, syn::Type::Slice(sl)
        if is_lifted_type(&sl.elem, scalar, &[])
            || is_row(&sl.elem, scalar)
            || is_lifted_element(&sl.elem, scalar, twins))
}

/// Whether `ty` is one of the crate's structs generic over one type, at the scalar
/// (`Model<f64>`): it holds dual numbers as `Model<Dual<f64>>` (the derive's
/// `generic_lift`).
fn is_generic_at(ty: &syn::Type, scalar: &Ident, generic: &[String]) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    p.qself.is_none()
        && generic.iter().any(|g| last.ident == g)
        && args.args.len() == 1
        && matches!(&args.args[0], syn::GenericArgument::Type(syn::Type::Path(a)) if a.path.is_ident(scalar))
}

/// The type parameter of the function that `ty` is, by itself (`T`).
fn type_parameter(ty: &syn::Type, sig: &FnSig) -> Option<Ident> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let name = p.path.get_ident().filter(|_| p.qself.is_none())?;
    // (Or of its `impl` block, when known: `impl<T: Differentiable> Pair<T> { fn new(a:
    // T) .. }`.)
    let outer = sig
        .outer_params
        .iter()
        .flatten()
        .any(|t| *name == t.to_string());
    (outer || sig.generics.type_params().any(|t| &t.ident == name)).then(|| name.clone())
}

fn is_receiver(p: &crate::parse::signature::Param) -> bool {
    matches!(&p.pat, syn::Pat::Ident(i) if i.ident == "self")
}

/// The types a dual companion's result holds as they are.
const INTEGERS: [&str; 13] = [
    "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128", "bool",
];

/// Whether a result of type `t` can be lifted: the scalar, a struct with a twin, one of
/// the crate's structs generic over one type at the scalar (`generic`), and `Vec`s,
/// arrays, tuples and `Option`s of them.
fn output_liftable(t: &syn::Type, s: &Ident, twins: &[String], generic: &[String]) -> bool {
    if is_generic_at(t, s, generic) {
        return true;
    }
    match t {
        // (Beside floats, a tuple may hold integers and `bool`s, which stay as they are:
        // `(f64, usize)`.)
        syn::Type::Tuple(tt) => {
            let integer = |e: &syn::Type| {
                matches!(e, syn::Type::Path(p) if p.qself.is_none()
                    && p.path.get_ident().is_some_and(|i| INTEGERS.contains(&i.to_string().as_str())))
            };
            tt.elems.iter().any(|e| !integer(e))
                && tt
                    .elems
                    .iter()
                    .all(|e| integer(e) || output_liftable(e, s, twins, generic))
        }
        // `Option<f64>`: an `Option` of dual numbers.
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let last = &p.path.segments[0];
            match &last.arguments {
                syn::PathArguments::AngleBracketed(a) if last.ident == "Option" => {
                    matches!(a.args.first(), Some(syn::GenericArgument::Type(inner))
                        if a.args.len() == 1 && output_liftable(inner, s, twins, generic))
                }
                _ => is_lifted_type(t, s, twins),
            }
        }
        other => is_lifted_type(other, s, twins),
    }
}
