//! The signature of a function to differentiate: its parameters, which of them are
//! differentiated, their tangent types, and the generics companions need.
use super::types::{self, Generics};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::VisitMut;

/// One parameter (the receiver included, first).
#[derive(Clone)]
pub struct Param {
    /// The pattern, for lowering (`self` for a receiver).
    pub pat: syn::Pat,
    /// The name the companions give it.
    pub ident: TokenStream,
    /// The parameter as written in companions (`x: f64`, `&'l0 self`).
    pub decl: TokenStream,
    /// The tangent type, when the parameter is differentiated.
    pub tangent: Option<TokenStream>,
    /// Whether the parameter is taken by reference (its zero can be made lazily).
    pub by_ref: bool,
    /// Whether the parameter is `&mut` (its pointee is an input and an output).
    pub mutable: bool,
    /// The lifetime of a `&mut` parameter's borrow, which linear maps must not capture.
    pub mut_lifetime: Option<syn::Lifetime>,
    /// Whether the tangent is asked of rustc (a type the macro cannot classify, such as a
    /// user's struct or enum) and no `wrt` chose the parameter: it is left out of the
    /// derivative when no derivative flows from it ([`FnSig::undecided`]).
    pub asked: bool,
}

/// A checked signature.
#[derive(Clone)]
pub struct FnSig {
    pub ident: syn::Ident,
    pub params: Vec<Param>,
    /// The result type (`()` when absent).
    pub output: TokenStream,
    /// The result's tangent type, when the result is differentiable.
    pub output_tangent: Option<TokenStream>,
    /// Generics for companions: the original ones, plus named lifetimes for elided ones.
    pub generics: syn::Generics,
    /// All lifetimes in `generics`, for the companions' `Captures` bounds.
    pub lifetimes: Vec<syn::Lifetime>,
    pub roles: Generics,
    /// A free function (not in an `impl`): its linear maps capture no borrow of the
    /// arguments (they save copies), which `+ use<..>` states in any edition.
    pub detached: bool,
    /// For an associated function, the generic parameters in scope from its `impl` or
    /// trait (`Self` in a trait), when the macro knows them exactly (`#[differentiable]`
    /// on the block, or a method declared in a trait): its linear maps then capture
    /// those and the function's own type parameters, and no borrow of the arguments,
    /// as a trait's declaration and its implementations must agree.
    pub outer_params: Option<Vec<TokenStream>>,
    /// Whether the function calls itself (its boxed linear map may borrow the arguments).
    pub recursive: bool,
    /// Whether it is called back by a function it calls (mutual recursion): its
    /// companions return their linear maps boxed, whose types would contain themselves.
    pub mutual: bool,
    /// The types of parameters left out because their definitions do not make them
    /// Differentiable: the companions check that they are not.
    pub not_differentiable: Vec<TokenStream>,
    /// For each parameter (the receiver too), the named fields of its struct and their
    /// types, when the struct's definition is in the crate's source: the dual companion
    /// mixes those of floats with dual numbers where the parameter is held plain.
    pub param_fields: Vec<Vec<(String, syn::Type)>>,
    /// The structs named in the function (its signature or body) that have a dual twin
    /// (`twin.rs`), by name: the dual companion holds them as their twins.
    pub twins: Vec<(String, crate::twin::Twin)>,
    /// The type of the `impl` block, when it is a struct with a dual twin: `Self` is that
    /// struct in the dual companion.
    pub self_twin: Option<String>,
    /// The companions taking the receiver as a constant (`__vjp_const_m`,
    /// [`FnSig::with_constant_receiver`]).
    pub constant_receiver: bool,
    /// Whether the receiver is a float (`impl Digamma for f64`): a method call of the
    /// function's name on any float of the body (`(x + 1.0).digamma()`) calls itself.
    pub float_self: bool,
    /// The crate's structs with type parameters, as its source shows them: the dual
    /// companion cannot call a method of one held plain with dual arguments.
    pub generic_structs: Vec<String>,
    /// Of those, the ones its dual companion takes at dual numbers (`&Model<f64>` as
    /// `Model<Dual<f64>>`: `source::Seen::dual_generic_structs`).
    pub dual_generic_structs: Vec<String>,
    /// For a method of a trait generic over its scalars (`trait Continuous<K: Float, T:
    /// Float>`), declared or provided there or implemented for it, those scalars: the
    /// trait declares its dual companion at their dual numbers (`emit/dual.rs`,
    /// `DualOf`), which implementations for `f64` or `f32` take.
    pub trait_scalars: Vec<String>,
}

/// Names elided lifetimes `'__dN`, collecting them.
struct NameLifetimes(Vec<syn::Lifetime>);

impl NameLifetimes {
    fn fresh(&mut self) -> syn::Lifetime {
        let lt = syn::Lifetime::new(&format!("'__d{}", self.0.len()), Span::call_site());
        self.0.push(lt.clone());
        lt
    }
}

impl VisitMut for NameLifetimes {
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        if r.lifetime.is_none() {
            r.lifetime = Some(self.fresh());
        }
        syn::visit_mut::visit_type_reference_mut(self, r);
    }
    fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
        if lt.ident == "_" {
            *lt = self.fresh();
        }
    }
}

impl Param {
    /// The type of a parameter declared `pat: Type` (`None` for the receiver).
    pub fn declared_type(&self) -> Option<syn::Type> {
        let tokens: Vec<proc_macro2::TokenTree> = self.decl.clone().into_iter().collect();
        let colon = tokens
            .iter()
            .position(|t| matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ':'))?;
        let ty: TokenStream = tokens[colon + 1..].iter().cloned().collect();
        syn::parse2(ty).ok()
    }
}

impl FnSig {
    /// The declared type of parameter `i` (`None` for the receiver).
    pub fn declared_type(&self, i: usize) -> Option<syn::Type> {
        self.params.get(i)?.declared_type()
    }

    /// Reads `sig` of a function in an `impl` block whose generics are `outer`, when they
    /// are known (`#[differentiable]` on the block): its type parameters bounded by a float
    /// trait are the scalars the function does not declare.
    pub fn in_context(
        sig: &syn::Signature,
        wrt: Option<&[syn::Ident]>,
        outer: Option<&syn::Generics>,
    ) -> syn::Result<FnSig> {
        let mut roles = types::generics(&sig.generics);
        let outer_scalars = match outer {
            Some(generics) => types::generics(generics).scalars,
            // Without the block: a short uppercase name the function does not declare
            // (`-> T` in a method of `impl<T: Float> P<T>`) is taken for a type parameter
            // of the enclosing `impl`, a scalar.
            None => outer_type_params(sig),
        };
        for name in outer_scalars {
            if !roles.all.contains(&name) {
                roles.scalars.push(name.clone());
                roles.outer.push(name);
            }
        }
        let mut namer = NameLifetimes(Vec::new());
        let mut params = Vec::new();
        for (i, input) in sig.inputs.iter().enumerate() {
            params.push(Self::param(i, input, &roles, &mut namer)?);
        }
        if let Some(names) = wrt {
            Self::restrict(&mut params, sig, names)?;
        }
        let mutates = params.iter().any(|p| p.mutable);
        let (output, output_tangent) = match &sig.output {
            syn::ReturnType::Default if mutates => (quote!(()), Some(quote!(()))),
            syn::ReturnType::Type(_, ty)
                if mutates && matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty()) =>
            {
                (quote!(()), Some(quote!(())))
            }
            syn::ReturnType::Default => (quote!(()), None),
            syn::ReturnType::Type(_, ty) => (ty.to_token_stream(), types::tangent(ty, &roles)),
        };
        let mut generics = sig.generics.clone();
        for lt in &namer.0 {
            generics
                .params
                .push(syn::GenericParam::Lifetime(syn::LifetimeParam::new(
                    lt.clone(),
                )));
        }
        for s in &roles.scalars {
            let id = format_ident!("{}", s);
            generics
                .make_where_clause()
                .predicates
                // Scalars are numbers: `'static`, which a recursive function's boxed linear map
                // (and so every generic caller of one) needs.
                .push(syn::parse_quote!(#id: ::diff::Real + 'static));
        }
        let lifetimes = generics.lifetimes().map(|l| l.lifetime.clone()).collect();
        Ok(FnSig {
            ident: sig.ident.clone(),
            params,
            output,
            output_tangent,
            generics,
            lifetimes,
            roles,
            detached: false,
            outer_params: None,
            recursive: false,
            mutual: false,
            not_differentiable: Vec::new(),
            param_fields: Vec::new(),
            twins: Vec::new(),
            self_twin: None,
            constant_receiver: false,
            float_self: false,
            generic_structs: Vec::new(),
            dual_generic_structs: Vec::new(),
            trait_scalars: Vec::new(),
        })
    }

    fn param(
        i: usize,
        input: &syn::FnArg,
        roles: &Generics,
        namer: &mut NameLifetimes,
    ) -> syn::Result<Param> {
        match input {
            syn::FnArg::Receiver(r) => {
                let mut r = r.clone();
                if let Some((_, lt)) = &mut r.reference {
                    if lt.is_none() {
                        *lt = Some(namer.fresh());
                    }
                }
                let by_ref = r.reference.is_some();
                let mutable = by_ref && r.mutability.is_some();
                let mut_lifetime = if mutable {
                    r.reference.as_ref().and_then(|(_, l)| l.clone())
                } else {
                    None
                };
                if !by_ref {
                    r.mutability = None;
                }
                if r.colon_token.is_some() {
                    return Err(syn::Error::new_spanned(&r, "a receiver with an explicit type is not supported by #[differentiable]; use `self`, `&self` or `&mut self`"));
                }
                Ok(Param {
                    pat: syn::parse_quote!(self),
                    ident: quote!(self),
                    decl: r.to_token_stream(),
                    tangent: Some(quote!(<Self as ::diff::Differentiable>::TangentVector)),
                    by_ref,
                    mutable,
                    mut_lifetime,
                    // A trait's declaration and its implementations must agree on the
                    // receiver whatever the bodies do: it is never left out by itself.
                    asked: false,
                })
            }
            syn::FnArg::Typed(t) => {
                if let syn::Type::Tuple(tuple) = &*t.ty {
                    if tuple
                        .elems
                        .iter()
                        .any(|e| matches!(e, syn::Type::Reference(_)))
                    {
                        return Err(syn::Error::new_spanned(&t.ty, "a tuple holding references is not supported as a parameter of a #[differentiable] function: take the tuple by value (`(f32, f32)`), a reference to it (`&(f32, f32)`), or each reference as a parameter of its own"));
                    }
                }
                let ident = match &*t.pat {
                    syn::Pat::Ident(p) if p.subpat.is_none() => p.ident.to_token_stream(),
                    _ => format_ident!("arg{}", i).to_token_stream(),
                };
                let mut ty = (*t.ty).clone();
                namer.visit_type_mut(&mut ty);
                let by_ref = matches!(ty, syn::Type::Reference(_));
                let mutable = matches!(&ty, syn::Type::Reference(r) if r.mutability.is_some());
                let mut_lifetime = match &ty {
                    syn::Type::Reference(r) if r.mutability.is_some() => r.lifetime.clone(),
                    _ => None,
                };
                let tangent = types::tangent(&t.ty, roles);
                let asked = tangent.as_ref().is_some_and(types::is_asked);
                Ok(Param {
                    pat: (*t.pat).clone(),
                    decl: quote!(#ident: #ty),
                    ident,
                    tangent,
                    by_ref,
                    mutable,
                    mut_lifetime,
                    asked,
                })
            }
        }
    }

    /// Keeps only the `wrt` parameters differentiated; names that are not parameters, or
    /// whose type is not differentiable, are errors at the name.
    fn restrict(
        params: &mut [Param],
        sig: &syn::Signature,
        names: &[syn::Ident],
    ) -> syn::Result<()> {
        let mut keep = vec![false; params.len()];
        let mut errors: Option<syn::Error> = None;
        let mut add = |e: syn::Error| match &mut errors {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        };
        for n in names {
            match params.iter().position(|p| *n == p.ident.to_string()) {
                None => {
                    let list: Vec<String> = params.iter().map(|p| p.ident.to_string()).collect();
                    add(syn::Error::new_spanned(n, format!("`wrt` names `{n}`, which is not a parameter of `{}`; its parameters are: {}", sig.ident, list.join(", "))));
                }
                Some(i) if params[i].tangent.is_none() => add(syn::Error::new_spanned(n, format!("`wrt` names `{n}`, whose type is not Differentiable (integers, booleans, strings and closures carry no derivative)"))),
                Some(i) => keep[i] = true,
            }
        }
        if let Some(e) = errors {
            return Err(e);
        }
        for (p, k) in params.iter_mut().zip(keep) {
            if !k {
                p.tangent = None;
            }
            p.asked = false;
        }
        Ok(())
    }

    /// The differentiated parameters whose type the macro cannot classify and that no
    /// `wrt` chose (not `&mut` ones): each is left out of the derivative if no
    /// derivative flows from it, so that an enum or a configuration struct that is not
    /// Differentiable needs no `wrt` (a parameter through which a derivative does flow
    /// stays, and rustc asks for `Differentiable` if its type is not).
    pub fn undecided(&self) -> Vec<usize> {
        (0..self.params.len())
            .filter(|i| {
                let p = &self.params[*i];
                p.asked && p.tangent.is_some() && !p.mutable
            })
            .collect()
    }

    /// Leaves parameter `i` out of the derivative.
    pub fn leave_out(&mut self, i: usize) {
        self.params[i].tangent = None;
        self.params[i].asked = false;
    }

    /// Indices of the `&mut` parameters.
    pub fn mutated(&self) -> Vec<usize> {
        (0..self.params.len())
            .filter(|i| self.params[*i].mutable)
            .collect()
    }

    /// The tangents of the `&mut` parameters' pointees, as optional slots (`()` for one
    /// that is not differentiated).
    pub fn mutated_slots(&self) -> Vec<TokenStream> {
        let slots = self.slots();
        self.mutated()
            .into_iter()
            .map(|i| slots[i].clone())
            .collect()
    }

    /// Indices of the differentiated parameters.
    pub fn wrt(&self) -> Vec<usize> {
        (0..self.params.len())
            .filter(|i| self.params[*i].tangent.is_some())
            .collect()
    }

    /// The slot type of each parameter: `Option<Tangent>` or `()`.
    pub fn slots(&self) -> Vec<TokenStream> {
        self.params
            .iter()
            .map(|p| match &p.tangent {
                Some(t) => quote!(::core::option::Option<#t>),
                None => quote!(()),
            })
            .collect()
    }

    /// What the returned linear maps capture (`+ use<..>`): a free function's, its type
    /// parameters only (linear maps save copies of what they read); an associated
    /// function's whose block's generics are known, those and its own; otherwise the
    /// edition's default, minus the borrows of `&mut` parameters (the caller reads the
    /// updated values).
    pub fn captures(&self) -> TokenStream {
        let muts: Vec<&syn::Lifetime> = self
            .params
            .iter()
            .filter_map(|p| p.mut_lifetime.as_ref())
            .collect();
        let own_params = self.generics.params.iter().filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        });
        if let Some(outer) = &self.outer_params {
            // Linear maps hold copies, never the borrowed arguments; a recursive one
            // boxes its recursive call's, which may.
            let boxed = match (self.recursive, self.lifetimes.as_slice()) {
                (true, [lt]) => Some(lt),
                _ => None,
            };
            let boxed = boxed.into_iter();
            return quote!(+ use<#(#boxed,)* #(#outer,)* #(#own_params),*>);
        }
        if muts.is_empty() && !self.detached {
            // A method: its `impl`'s generics are unknown here, so the edition's default
            // capture rules apply (2021: no lifetimes; linear maps save copies).
            return TokenStream::new();
        }
        // Linear maps hold copies of what they read, never the borrowed arguments.
        let keep = self
            .lifetimes
            .iter()
            .filter(|l| !muts.contains(l) && !self.detached);
        quote!(+ use<#(#keep,)* #(#own_params),*>)
    }

    /// `+ 'a` for the one lifetime of the signature (a boxed recursive pullback may borrow
    /// the arguments); nothing when there is none.
    pub fn dyn_lifetime(&self) -> TokenStream {
        if self.detached {
            return TokenStream::new();
        }
        match self.lifetimes.as_slice() {
            [lt] => quote!(+ #lt),
            _ => TokenStream::new(),
        }
    }

    /// Bounds `Self` for the companions of an associated function: `Sized` (so that a
    /// trait declaring them stays usable as `dyn Trait` for its other methods) and, in a
    /// trait (`in_trait`), `Differentiable` when a tangent names `Self`, which a trait's
    /// `Self` is not known to be. (An impl does not repeat it: a where clause would keep
    /// rustc from normalizing `<P<T> as Differentiable>::TangentVector` in its body.)
    pub fn bound_self(&mut self, in_trait: bool) {
        let bound = self.self_bound(in_trait);
        self.generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(Self: #bound));
    }

    /// The bound of `Self` [`FnSig::bound_self`] gives: `Sized`, and in a trait
    /// `Differentiable` too when a tangent names `Self`.
    fn self_bound(&self, in_trait: bool) -> TokenStream {
        let names_self = |ts: &TokenStream| types::mentions(ts, "Self");
        let mut tangents = self
            .params
            .iter()
            .filter_map(|p| p.tangent.as_ref())
            .chain(self.output_tangent.as_ref());
        if in_trait && tangents.any(names_self) {
            quote!(::core::marker::Sized + ::diff::Differentiable)
        } else {
            quote!(::core::marker::Sized)
        }
    }

    /// For a method of a trait (`&self` or `self`), the signature of its companions
    /// taking the receiver as a constant (`__vjp_const_m`): the receiver is left out,
    /// and with it the need for `Self: Differentiable` when nothing else names `Self`.
    /// Callers use them on receivers that carry no derivative, so that a trait's
    /// methods are differentiable on every implementing type, Differentiable or not.
    /// `None` for a method updating its receiver, or with no receiver.
    pub fn with_constant_receiver(&self) -> Option<FnSig> {
        let receiver = self.params.first().filter(|_| self.has_receiver())?;
        if receiver.mutable {
            return None;
        }
        let mut sig = self.clone();
        sig.leave_out(0);
        sig.constant_receiver = true;
        sig.twins.clear();
        sig.self_twin = None;
        // In a trait, the bound `bound_self` gave, now for what is left differentiated.
        let (before, after) = (self.self_bound(true), sig.self_bound(true));
        let before: syn::WherePredicate = syn::parse_quote!(Self: #before);
        if let Some(w) = sig.generics.where_clause.as_mut() {
            for p in w.predicates.iter_mut().filter(|p| **p == before) {
                *p = syn::parse_quote!(Self: #after);
            }
        }
        Some(sig)
    }

    /// Whether the function has a receiver (`self`, `&self`, `&mut self`).
    pub fn has_receiver(&self) -> bool {
        self.params
            .first()
            .is_some_and(|p| matches!(&p.pat, syn::Pat::Ident(i) if i.ident == "self"))
    }

    /// The result's tangent, or an error at the signature when it has none.
    pub fn output_tangent(&self, span: Span) -> syn::Result<TokenStream> {
        self.output_tangent.clone().ok_or_else(|| {
            let result = syn::parse2::<syn::Type>(self.output.clone()).is_ok_and(|t| {
                matches!(t, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Result"))
            });
            let instead = match result {
                true => ": a `Result` has no tangent; return the value (and panic on the error, or check the arguments before the call) or an `Option` of it, and keep a checked constructor beside it without the attribute",
                false => "",
            };
            syn::Error::new(span, format!("a #[differentiable] function must return a Differentiable value (f64, f32, a Float type, a tuple, array, Vec or Option of them, or a type deriving Differentiable){instead}"))
        })
    }
}

/// Single-segment type names of one or two uppercase letters in the signature (`T`, `U`)
/// other than `Self`: candidates for type parameters of an enclosing `impl`.
fn outer_type_params(sig: &syn::Signature) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'a> syn::visit::Visit<'a> for Names {
        fn visit_type_path(&mut self, p: &'a syn::TypePath) {
            if let Some(id) = p.path.get_ident() {
                let s = id.to_string();
                let short = s.len() <= 2 && s.chars().all(|c| c.is_ascii_uppercase());
                if p.qself.is_none() && short && !self.0.contains(&s) {
                    self.0.push(s);
                }
            }
            syn::visit::visit_type_path(self, p);
        }
    }
    let mut n = Names(Vec::new());
    for input in &sig.inputs {
        syn::visit::Visit::visit_fn_arg(&mut n, input);
    }
    syn::visit::Visit::visit_return_type(&mut n, &sig.output);
    n.0
}
