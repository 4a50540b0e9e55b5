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
//!   value, which method resolution prefers over diff-std's `&self` rules; the derived
//!   mode, for a method diff-std has no rule for, in a trait whose methods take `&self`,
//!   so that a registration of that mode (by value) wins over them.
//!
//! Each companion is built once as a [`Companion`] (name, type, body) by a [`Group`], which
//! knows where its companions go and how they take the first parameter ([`Receiver`]), so
//! their parameters, calls and bodies are written in that form from the start; the group
//! then writes it as a function, or as a trait method's declaration and implementation.
use crate::emit::companion::Signatures;
use crate::emit::dual::DualSig;
use crate::emit::names::{self, Kind, Mode};
use crate::parse::derivative_attr::DerivativeArgs;
use crate::parse::signature::FnSig;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// Expands the attribute; on error the user's function is still emitted.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let err = e.to_compile_error();
            return quote! { #err #item };
        }
    };
    syn::visit_mut::VisitMut::visit_item_fn_mut(&mut crate::parse::ungroup::Ungroup, &mut func);
    let func = captures_like_2021(func);
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

/// The registration with its linear map's `impl` type stating what it captures, when the
/// user did not and no parameter is a reference: `+ use<T, ..>`, its type parameters and
/// no lifetime. That is what an `impl` type captures by default under edition 2021 and
/// what the companions promise their callers (a linear map holds copies, never a borrow
/// of the arguments); under edition 2024 the default would capture the arguments'
/// borrows. With a reference parameter the linear map may borrow it (as edition 2024
/// lets it without saying so), and the companions call the registration again when the
/// linear map runs ([`borrows_arguments`]).
fn captures_like_2021(mut func: syn::ItemFn) -> syn::ItemFn {
    if states_captures(&func).is_some() || shared_references(&func) {
        return func;
    }
    let syn::ReturnType::Type(_, ty) = &mut func.sig.output else {
        return func;
    };
    let syn::Type::Tuple(pair) = &mut **ty else {
        return func;
    };
    let Some(syn::Type::ImplTrait(map)) = pair.elems.iter_mut().nth(1) else {
        return func;
    };
    let params: Vec<TokenStream> = func
        .sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    // At the user's `impl` type, so that diagnostics about it still point there.
    let span = syn::spanned::Spanned::span(&*map);
    map.bounds
        .push(syn::parse_quote_spanned!(span=> use<#(#params),*>));
    func
}

/// Whether the registration's linear map may borrow the arguments, which a companion's
/// linear map may not ([`captures_like_2021`]): it states that it captures a lifetime
/// (`+ '_`, `+ 'a`, `use<'a>`), or states nothing and a parameter is a shared reference.
/// The companions then call the registration again, on copies of the arguments, when the
/// linear map runs ([`Reg::late_call`]); `+ use<>` (or `+ 'static`) says it does not.
fn borrows_arguments(func: &syn::ItemFn) -> bool {
    states_captures(func).unwrap_or_else(|| shared_references(func))
}

/// What the registration's linear map states it captures: `Some(true)` for a lifetime
/// other than `'static`, `Some(false)` for a `use<..>` or `'static` bound without one,
/// `None` when it states nothing.
fn states_captures(func: &syn::ItemFn) -> Option<bool> {
    let syn::ReturnType::Type(_, ty) = &func.sig.output else {
        return None;
    };
    let syn::Type::Tuple(pair) = &**ty else {
        return None;
    };
    let Some(syn::Type::ImplTrait(map)) = pair.elems.iter().nth(1) else {
        return None;
    };
    map.bounds
        .iter()
        .filter_map(|b| match b {
            syn::TypeParamBound::Lifetime(l) => Some(l.ident != "static"),
            syn::TypeParamBound::PreciseCapture(c) => Some(
                c.params
                    .iter()
                    .any(|p| matches!(p, syn::CapturedParam::Lifetime(_))),
            ),
            _ => None,
        })
        .reduce(|a, b| a || b)
}

/// Whether a parameter of the registration is a shared reference (`&[f64]`, `&Model`).
fn shared_references(func: &syn::ItemFn) -> bool {
    func.sig.inputs.iter().any(|a| match a {
        syn::FnArg::Typed(t) => matches!(&*t.ty, syn::Type::Reference(r) if r.mutability.is_none()),
        syn::FnArg::Receiver(r) => r.reference.is_some() && r.mutability.is_none(),
    })
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
    /// The registered function's signature, named after it (`h`), returning the value.
    sig: FnSig,
    /// The type of the value (the first element of the registration's result).
    value_ty: syn::Type,
    output_tangent: TokenStream,
    /// The user's linear map type: what the pullback returns / the differential takes.
    user_tangents: TokenStream,
}

fn registration(args: TokenStream, func: &syn::ItemFn) -> syn::Result<TokenStream> {
    let args = DerivativeArgs::parse(args)?;
    let (value_ty, _) = returned_pair(&func.sig)?;
    let target = target(&args.of);
    // The type names the registration does not declare are its block's type parameters,
    // or types (`type CT = PTangent;`), whatever they look like.
    let outer = crate::source::enclosing(&func.sig.ident).outer_generics();
    let mut sig = FnSig::in_context(&func.sig, None, outer.as_ref())?;
    leave_out_by_definition(&mut sig, func);
    sig.detached = matches!(target, Target::Function(_));
    sig.output = value_ty.to_token_stream();
    sig.output_tangent = crate::parse::types::tangent(&value_ty, &sig.roles);
    let output_tangent = sig.output_tangent(value_ty.span())?;
    sig.ident = match &target {
        Target::Function(n) | Target::TypeMethod(_, n) | Target::ScalarMethod(_, n) => n.clone(),
    };
    let user_tangents = Signatures {
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
        value_ty,
        output_tangent,
        user_tangents,
    };
    if let Target::TypeMethod(ty, _) = &target {
        refuse_receiver_by_reference(func, ty)?;
    }
    let check = reg.signature_check();
    let items = match &target {
        Target::Function(_) => reg.free_function(),
        Target::TypeMethod(ty, _) => reg.type_method(ty),
        Target::ScalarMethod(ty, _) => reg.scalar_method(ty)?,
    };
    Ok(quote! { #check #items })
}

/// Leaves out of the derivative the parameters whose type the crate's source defines
/// without making it Differentiable (the receiver of a method of `struct Plain;`, a
/// `&Config`), as `#[differentiable]` does: the registration's linear map has no slot
/// for them.
fn leave_out_by_definition(sig: &mut FnSig, func: &syn::ItemFn) {
    for (i, input) in func.sig.inputs.iter().enumerate() {
        let syn::FnArg::Typed(t) = input else {
            continue;
        };
        if sig.params[i].tangent.is_none() || sig.params[i].mutable {
            continue;
        }
        let Some(name) = crate::differentiable::type_name(&t.ty) else {
            continue;
        };
        if crate::source::differentiable_type(func.sig.ident.span(), &name) == Some(false) {
            sig.leave_out(i);
        }
    }
}

/// A registration for a method of `ty` takes the receiver by value, whatever the method
/// takes (`&self` or `self`): refuses a first parameter `&ty`.
fn refuse_receiver_by_reference(func: &syn::ItemFn, ty: &syn::Path) -> syn::Result<()> {
    let Some(syn::FnArg::Typed(first)) = func.sig.inputs.first() else {
        return Ok(());
    };
    let syn::Type::Reference(r) = &*first.ty else {
        return Ok(());
    };
    let want = ty.segments.last().map(|s| &s.ident);
    match &*r.elem {
        syn::Type::Path(p) if p.path.segments.last().map(|s| &s.ident) == want => {
            let owner = &r.elem;
            Err(syn::Error::new_spanned(
                &first.ty,
                format!(
                    "a derivative registered for a method takes the receiver by value, also for a method taking `&self`: write `{}: {}`",
                    first.pat.to_token_stream(),
                    owner.to_token_stream()
                ),
            ))
        }
        _ => Ok(()),
    }
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

/// A local of the generated bodies: hygienic, so a parameter of the same name (`value`,
/// `seed`) is never shadowed by it.
fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

fn locals(prefix: &str, n: usize) -> Vec<Ident> {
    (0..n).map(|i| local(&format!("{prefix}{i}"))).collect()
}

/// `x` for one item, `(x, y,)` for several.
fn one_or_tuple<T: ToTokens>(items: &[T]) -> TokenStream {
    match items {
        [one] => one.to_token_stream(),
        _ => quote!((#(#items,)*)),
    }
}

/// `::<T, N>`: the type and const parameters of `generics` (lifetimes are inferred).
fn turbofish(generics: &syn::Generics) -> TokenStream {
    let params: Vec<&Ident> = generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(&t.ident),
            syn::GenericParam::Const(c) => Some(&c.ident),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    if params.is_empty() {
        TokenStream::new()
    } else {
        quote!(::<#(#params),*>)
    }
}

/// Whether `ty` is a scalar: `f32`, `f64` or a scalar type parameter, also behind a
/// reference (the tangent of `&f64` is `f64`).
fn is_scalar(ty: &syn::Type, sig: &FnSig) -> bool {
    match ty {
        syn::Type::Reference(r) => is_scalar(&r.elem, sig),
        syn::Type::Paren(p) => is_scalar(&p.elem, sig),
        syn::Type::Group(g) => is_scalar(&g.elem, sig),
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().is_some_and(|id| {
            id == "f64" || id == "f32" || sig.roles.scalars.iter().any(|s| id == s)
        }),
        _ => false,
    }
}

fn other(mode: Mode) -> Mode {
    match mode {
        Mode::Vjp => Mode::Jvp,
        Mode::Jvp => Mode::Vjp,
    }
}

/// The lints a companion never reports (its code is generated, its parameters those of
/// the registered function).
fn lints_allowed() -> TokenStream {
    quote!(#[allow(dead_code, unused_mut, unused_variables, unused_parens, non_snake_case, clippy::all, clippy::pedantic)])
}

/// How the companions of a [`Group`] take the registered function's first parameter.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Receiver {
    /// As the registered function does: `x: T`.
    Param,
    /// `self`: a method of `T`.
    Value,
    /// `&self`: a method of a scalar that ranks below the by-value methods of registrations
    /// in method resolution, or of a type whose method takes `&self`. The body starts with
    /// a copy of the receiver's value, `let this = self.clone();`, and reads `this`, so a
    /// linear map never borrows the receiver.
    Ref,
}

/// One companion, built once and written by its [`Group`].
struct Companion {
    name: Ident,
    /// The companion returns `(value_ty, impl map)`.
    value_ty: TokenStream,
    /// The linear map's `FnOnce(..) -> ..` bound, without its capture bound.
    map: TokenStream,
    body: TokenStream,
}

/// Companions written together: free functions, or associated items of one `impl` block
/// or trait, with one receiver form.
struct Group<'r, 'a> {
    reg: &'r Reg<'a>,
    receiver: Receiver,
    /// Whether the companions are associated items, called through `Self::`.
    assoc: bool,
}

impl Group<'_, '_> {
    fn sig(&self) -> &FnSig {
        &self.reg.sig
    }

    fn has_receiver(&self) -> bool {
        self.receiver != Receiver::Param
    }

    /// The parameters as the companions declare them.
    fn decls(&self) -> Vec<TokenStream> {
        let params = self.sig().params.iter().enumerate();
        params
            .map(|(i, p)| match (i, self.receiver) {
                (0, Receiver::Value) => quote!(self),
                (0, Receiver::Ref) => quote!(&self),
                _ => p.decl.clone(),
            })
            .collect()
    }

    /// Parameter `i` as a value, as the registered function takes it.
    fn value(&self, i: usize) -> TokenStream {
        match (i, self.receiver) {
            (0, Receiver::Value) => quote!(self),
            (0, Receiver::Ref) => local("this").to_token_stream(),
            _ => self.sig().params[i].ident.clone(),
        }
    }

    fn values(&self) -> Vec<TokenStream> {
        (0..self.sig().params.len())
            .map(|i| self.value(i))
            .collect()
    }

    /// The arguments of a call to the registration's companion (`Self::__vjp_h`) from
    /// one derived from it: the receiver as that one takes it (`self` where both take
    /// `&self`, the copy `this` where it takes `self`).
    fn registered_args(&self) -> Vec<TokenStream> {
        if self.receiver == Receiver::Ref && self.reg.ref_receiver() {
            self.own_args()
        } else {
            self.values()
        }
    }

    /// The arguments of a call to another companion of the group: the parameters as they
    /// are declared.
    fn own_args(&self) -> Vec<TokenStream> {
        let params = self.sig().params.iter().enumerate();
        params
            .map(|(i, p)| match i {
                0 if self.has_receiver() => quote!(self),
                _ => p.ident.clone(),
            })
            .collect()
    }

    /// The path calling the companion `name` from the group.
    fn path(&self, name: &Ident) -> TokenStream {
        let turbofish = turbofish(&self.sig().generics);
        if self.assoc || self.has_receiver() {
            quote!(Self::#name #turbofish)
        } else {
            quote!(#name #turbofish)
        }
    }

    /// The bound on what the linear maps capture, in a trait declaration (`decl`) or not.
    fn captures(&self, decl: bool) -> TokenStream {
        match self.receiver {
            // A trait declaration names `Self`; neither captures the borrow of `self`.
            Receiver::Ref if decl => quote!(+ use<Self>),
            Receiver::Ref => quote!(+ use<>),
            _ => self.sig().captures(),
        }
    }

    fn signature(&self, c: &Companion, decl: bool) -> TokenStream {
        let (gen, _, wher) = self.sig().generics.split_for_impl();
        let decls = self.decls();
        let (name, value_ty, map) = (&c.name, &c.value_ty, &c.map);
        let caps = self.captures(decl);
        quote!(fn #name #gen (#(#decls),*) -> (#value_ty, impl #map #caps) #wher)
    }

    /// A free function, or a method of an inherent `impl` block or a trait `impl`.
    fn item(&self, c: &Companion, vis: &syn::Visibility) -> TokenStream {
        let (sig, body) = (self.signature(c, false), &c.body);
        let body = match self.receiver {
            Receiver::Ref => {
                let this = local("this");
                quote!(let #this = ::core::clone::Clone::clone(self); #body)
            }
            _ => body.clone(),
        };
        let allow = lints_allowed();
        quote! {
            #[doc(hidden)]
            #[inline]
            #allow
            #vis #sig { #body }
        }
    }

    /// A trait named `name` declaring the companions, and its implementation for `ty`.
    fn in_trait(
        &self,
        name: Ident,
        ty: &syn::Path,
        vis: &syn::Visibility,
        cs: &[Companion],
    ) -> TokenStream {
        let decls = cs.iter().map(|c| {
            let (sig, allow) = (self.signature(c, true), lints_allowed());
            quote! {
                #[doc(hidden)]
                #allow
                #sig;
            }
        });
        let impls = cs.iter().map(|c| self.item(c, &syn::Visibility::Inherited));
        quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #vis trait #name { #(#decls)* }
            impl #name for #ty { #(#impls)* }
        }
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

    fn name(&self) -> &Ident {
        &self.sig.ident
    }

    /// Whether parameter `i` is differentiated and a scalar.
    fn is_scalar_param(&self, i: usize) -> bool {
        self.sig.params[i].tangent.is_some()
            && match &self.func.sig.inputs[i] {
                syn::FnArg::Typed(t) => is_scalar(&t.ty, &self.sig),
                syn::FnArg::Receiver(_) => false,
            }
    }

    /// `const _: () = { let _: fn(T0, T1) -> R = of; };`: the registered function must
    /// have the derivative's parameter and value types.
    fn signature_check(&self) -> TokenStream {
        let of = &self.args.of;
        let by_ref = self.ref_receiver();
        let tys = self
            .func
            .sig
            .inputs
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                syn::FnArg::Typed(t) if i == 0 && by_ref => {
                    let ty = &t.ty;
                    quote!(&#ty)
                }
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

    /// A companion of `mode` in the internal convention (one slot per parameter).
    fn slot_companion(&self, mode: Mode, body: TokenStream) -> Companion {
        let ot = &self.output_tangent;
        let signatures = Signatures {
            sig: &self.sig,
            vis: &syn::Visibility::Inherited,
            in_impl: false,
        };
        let slots = self.sig.slots();
        let map = match mode {
            Mode::Vjp => {
                let seed = signatures.seed_type(ot);
                quote!(::core::ops::FnOnce(#seed) -> (#(#slots,)*))
            }
            Mode::Jvp => {
                let out = signatures.differential_output(ot);
                quote!(::core::ops::FnOnce((#(#slots,)*)) -> #out)
            }
        };
        Companion {
            name: Kind::of(mode).long(self.name()),
            value_ty: self.sig.output.clone(),
            map,
            body,
        }
    }

    /// A companion of `mode` in the user's tangent types (`__pullback_h`, `__differential_h`).
    fn user_companion(&self, mode: Mode, body: TokenStream) -> Companion {
        let (ot, ut) = (&self.output_tangent, &self.user_tangents);
        let (kind, map) = match mode {
            Mode::Vjp => (Kind::Pullback, quote!(::core::ops::FnOnce(#ot) -> #ut)),
            Mode::Jvp => (Kind::Differential, quote!(::core::ops::FnOnce(#ut) -> #ot)),
        };
        Companion {
            name: kind.long(self.name()),
            value_ty: self.sig.output.clone(),
            map,
            body,
        }
    }

    /// The call of the registration, around the companion's linear map: `(before,
    /// inside)`, the statements binding `value` before the linear map, and those binding
    /// the registration's linear map `map` at its start. One call before binds both;
    /// when the registration's linear map borrows the arguments ([`borrows_arguments`]),
    /// the arguments are copied first (`to_owned` of a reference, `clone` of a value) and
    /// the registration runs again on the copies inside.
    fn call_around(&self, g: &Group, value: &Ident, map: &Ident) -> (TokenStream, TokenStream) {
        let user = self.user_fn();
        let args = g.values();
        if !borrows_arguments(self.func) {
            return (
                quote!(let (#value, #map) = #user(#(#args),*);),
                TokenStream::new(),
            );
        }
        let copies = locals("copy", args.len());
        let by_ref = |i: usize| {
            let receiver = i == 0 && g.has_receiver();
            let p = &self.sig.params[i];
            !receiver && p.by_ref && !p.mutable
        };
        let owning = args
            .iter()
            .zip(&copies)
            .enumerate()
            .map(|(i, (a, c))| match by_ref(i) {
                true => quote!(let #c = ::std::borrow::ToOwned::to_owned(#a);),
                false => quote!(let #c = ::core::clone::Clone::clone(&#a);),
            });
        let on_copies = copies.iter().enumerate().map(|(i, c)| match by_ref(i) {
            true => quote!(&#c),
            false => quote!(#c),
        });
        (
            quote! { #(#owning)* let (#value, _) = #user(#(#args),*); },
            quote! { let (_, #map) = #user(#(#on_copies),*); },
        )
    }

    /// The slot-convention companion of the registered mode, calling the user's function.
    fn registered(&self, g: &Group) -> Companion {
        let mode = self.mode();
        let n = self.sig.params.len();
        let wrt = self.sig.wrt();
        let rt = quote!(::diff::__private);
        let (ot, ut) = (&self.output_tangent, &self.user_tangents);
        // Errors of the user's linear map type point at the registration's result type.
        let span = self.func.sig.output.span();
        // The user's linear map is passed to its check by a name located at `span`, where
        // rustc then reports a mismatch of its type, once. Such a name cannot be hygienic;
        // it is safe here, as the body reads no parameter after binding it.
        let value = local("value");
        let (pullback, differential) = (names::ident("pullback"), names::ident("differential"));
        let body = match mode {
            Mode::Vjp => {
                let seed = local("seed");
                let gs: Vec<Ident> = wrt.iter().map(|i| local(&format!("g{i}"))).collect();
                let pat = one_or_tuple(&gs);
                let slots = (0..n).map(|i| match wrt.iter().position(|w| *w == i) {
                    Some(k) => {
                        let g = &gs[k];
                        quote!(::core::option::Option::Some(#g))
                    }
                    None => quote!(()),
                });
                let arg = Ident::new("pullback", span);
                let checked = quote_spanned!(span=> #rt::registered_pullback::<#ot, #ut, _>(#arg));
                let (before, inside) = self.call_around(g, &value, &pullback);
                quote! {
                    #before
                    (#value, move |#seed| {
                        #inside
                        let #pullback = #checked;
                        let #pat = #pullback(#seed);
                        (#(#slots,)*)
                    })
                }
            }
            Mode::Jvp => {
                let ds = locals("d", n);
                let inputs: Vec<TokenStream> = wrt
                    .iter()
                    .map(|i| {
                        let d = &ds[*i];
                        quote!(#d.unwrap_or_else(|| ::diff::VectorSpace::zero_vector()))
                    })
                    .collect();
                let input = one_or_tuple(&inputs);
                let arg = Ident::new("differential", span);
                let checked =
                    quote_spanned!(span=> #rt::registered_differential::<#ut, #ot, _>(#arg));
                let (before, inside) = self.call_around(g, &value, &differential);
                quote! {
                    #before
                    (#value, move |(#(#ds,)*)| {
                        #inside
                        let #differential = #checked;
                        ::core::option::Option::Some(#differential(#input))
                    })
                }
            }
        };
        self.slot_companion(mode, body)
    }

    /// The user-shaped companion of the registered mode: the user's function itself.
    fn registered_user(&self, g: &Group) -> Companion {
        let (value, map, input) = (local("value"), local("map"), local("input"));
        let (before, inside) = self.call_around(g, &value, &map);
        // The registration's own linear map, or one calling it again.
        let map = match inside.is_empty() {
            true => quote!(#map),
            false => quote!(move |#input| { #inside #map(#input) }),
        };
        self.user_companion(self.mode(), quote! { #before (#value, #map) })
    }

    /// The companions of the other mode: derived from the registered one where the API
    /// says it follows (scalar result for a differential, scalar inputs for a pullback),
    /// else one that stops with a message.
    fn derived(&self, g: &Group) -> Vec<Companion> {
        match self.mode() {
            _ if !self.other_mode_follows() => vec![self.missing_mode(g)],
            Mode::Vjp => vec![self.jvp_from_vjp(g), self.user_differential(g)],
            Mode::Jvp => vec![self.vjp_from_jvp(g), self.user_pullback(g)],
        }
    }

    /// Whether the other mode follows from the registered one: a scalar result gives the
    /// differential, scalar inputs give the pullback.
    fn other_mode_follows(&self) -> bool {
        match self.mode() {
            Mode::Vjp => is_scalar(&self.value_ty, &self.sig),
            Mode::Jvp => {
                let wrt = self.sig.wrt();
                !wrt.is_empty() && wrt.iter().all(|i| self.is_scalar_param(*i))
            }
        }
    }

    /// The gate of `mode` (`__diff_has_jvp_h`): a trait name that the mode's requirement
    /// needs (for `&()`, `requirements.rs`), which the operators check. A registration of
    /// the mode imports [`Available`](::diff::__private::Available) under that name; the
    /// other mode's gate comes from a glob import, so that a registration of that mode in
    /// the same module shadows it: `Available` where the mode follows, else a trait with
    /// no implementation whose message asks for the registration.
    fn gate(&self, mode: Mode) -> Ident {
        let m = match mode {
            Mode::Vjp => "vjp",
            Mode::Jvp => "jvp",
        };
        format_ident!("__diff_has_{}_{}", m, self.name())
    }

    /// The name under which the carrier's forwarders call companion `kind`
    /// (`__diff_reg_vjp_h`): an alias of `__vjp_h` that only registrations define (an
    /// import beside the registered mode's item, glob-imported for the other mode), so
    /// that a `#[differentiable]` function of the same name in the module, whose
    /// `__vjp_h` is glob-imported too, does not make it ambiguous.
    fn alias(&self, kind: Kind) -> Ident {
        let long = kind.long(self.name()).to_string();
        format_ident!("__diff_reg_{}", long.trim_start_matches('_'))
    }

    /// The message of a missing mode, where the call needs it.
    fn missing_message(&self) -> String {
        let name = self.name();
        let (missing, attr) = match self.mode() {
            Mode::Vjp => (
                "forward mode (a differential)",
                format!("#[derivative(of = {name}, jvp)]"),
            ),
            Mode::Jvp => (
                "reverse mode (a pullback)",
                format!("#[derivative(of = {name})]"),
            ),
        };
        format!("diff: `{name}` has a registered derivative for one mode only, and {missing} does not follow from it; register it with `{attr}`")
    }

    /// The other mode's two companions when it does not follow, for a free function: they
    /// keep the callers' companions compiling, and never run, as every operator checks
    /// the mode's requirement first (`requirements.rs`).
    fn missing_modes(&self, g: &Group) -> Vec<Companion> {
        let body = self.missing_body(g);
        let mode = other(self.mode());
        vec![
            self.slot_companion(mode, body.clone()),
            self.user_companion(mode, body),
        ]
    }

    /// The four companions as associated functions of the carrier (`h::__vjp`),
    /// forwarding to the registration's module's (`__vjp_h`).
    fn forwarders(&self, g: &Group) -> Vec<Companion> {
        let args = g.own_args();
        Kind::ALL
            .into_iter()
            .map(|kind| {
                let callee = g.path(&self.alias(kind));
                let body = quote!(#callee(#(#args),*));
                let c = match kind {
                    Kind::Vjp | Kind::Jvp | Kind::VjpDual => self.slot_companion(kind.mode(), body),
                    Kind::Pullback | Kind::Differential => self.user_companion(kind.mode(), body),
                };
                Companion {
                    name: kind.short(),
                    ..c
                }
            })
            .collect()
    }

    /// The other mode's companion when it cannot be derived: it keeps the callers'
    /// companions compiling (a caller always has both), and stops with a message naming
    /// the function and the registration to add if that mode is actually run.
    fn missing_mode(&self, g: &Group) -> Companion {
        self.slot_companion(other(self.mode()), self.missing_body(g))
    }

    /// The body of a missing mode's companion: a stop naming the registration to add.
    fn missing_body(&self, g: &Group) -> TokenStream {
        let msg = self.missing_message();
        let args = g.own_args();
        quote! {
            let _ = (#(#args,)*);
            #[allow(unreachable_code)]
            (::core::panic!(#msg), |_| ::core::unreachable!())
        }
    }

    /// For a scalar result, the differential `dx -> <pullback(1), dx>`, the pairing in the
    /// scalar type itself (`DotIn`), so that on dual numbers (second order) it keeps its
    /// derivative.
    fn jvp_from_vjp(&self, g: &Group) -> Companion {
        let rt = quote!(::diff::__private);
        let n = self.sig.params.len();
        let (gs, ds) = (locals("g", n), locals("d", n));
        let terms = self.sig.wrt().into_iter().map(|i| {
            let (g, d) = (&gs[i], &ds[i]);
            self.pairing(&g.to_token_stream(), &d.to_token_stream())
        });
        let vjp = g.path(&Kind::Vjp.long(self.name()));
        let args = g.registered_args();
        let (value, pullback, unit, sum) = (
            local("value"),
            local("pullback"),
            local("unit"),
            local("sum"),
        );
        self.slot_companion(
            Mode::Jvp,
            quote! {
                let (#value, #pullback) = #vjp(#(#args),*);
                let #unit = #rt::Unit::unit(&#value);
                (#value, move |(#(#ds,)*)| {
                    let (#(#gs,)*) = #pullback(#unit);
                    let #sum = #rt::scalar_sum([#(#terms),*]);
                    ::core::option::Option::Some(#sum)
                })
            },
        )
    }

    /// The pairing `<a, b>` of two optional tangents that derives a mode, as the result's
    /// scalar: in that scalar itself for a registration generic over it (on dual numbers
    /// at second order it keeps its derivative), through `f64` for one written for a float
    /// type (whose tangents may be structs pairing as `InnerProduct` only).
    fn pairing(&self, a: &TokenStream, b: &TokenStream) -> TokenStream {
        let rt = quote!(::diff::__private);
        if self.sig.roles.scalars.is_empty() {
            quote!(#rt::from_f64(#rt::dot_opt(&#a, &#b)))
        } else {
            quote!(#rt::dot_in(&#a, &#b))
        }
    }

    /// For scalar inputs, the pullback `dy -> (<differential(e_i), dy>)_i`, one
    /// differential per input.
    fn vjp_from_jvp(&self, g: &Group) -> Companion {
        let rt = quote!(::diff::__private);
        let n = self.sig.params.len();
        let wrt = self.sig.wrt();
        let jvp = g.path(&Kind::Jvp.long(self.name()));
        let args = g.registered_args();
        let (value, seed, differential, d, dy) = (
            local("value"),
            local("seed"),
            local("differential"),
            local("d"),
            local("dy"),
        );
        let slots = (0..n).map(|k| {
            if !wrt.contains(&k) {
                return quote!(());
            }
            let x = g.value(k);
            let dirs = (0..n).map(|j| {
                if j == k {
                    quote!(::core::option::Option::Some(#rt::Unit::unit(&#x)))
                } else {
                    quote!(::core::default::Default::default())
                }
            });
            let pairing = self.pairing(&d.to_token_stream(), &dy.to_token_stream());
            quote!({
                let (_, #differential) = #jvp(#(#args),*);
                let #d = #differential((#(#dirs,)*));
                let #dy = ::core::option::Option::Some(::core::clone::Clone::clone(&#seed));
                ::core::option::Option::Some(#pairing)
            })
        });
        self.slot_companion(
            Mode::Vjp,
            quote! {
                let (#value, _) = #jvp(#(#args),*);
                (#value, move |#seed| (#(#slots,)*))
            },
        )
    }

    /// The derived mode's `__pullback_h`: the tangents of the differentiated parameters,
    /// zeros filled in.
    fn user_pullback(&self, g: &Group) -> Companion {
        let rt = quote!(::diff::__private);
        let n = self.sig.params.len();
        let gs = locals("g", n);
        let mut zeros = TokenStream::new();
        let mut outs = Vec::new();
        for i in self.sig.wrt() {
            let (x, g_i, zero) = (g.value(i), &gs[i], local(&format!("zero{i}")));
            let by_ref = self.sig.params[i].by_ref;
            if by_ref {
                zeros.extend(quote!(let #zero = #rt::zero_of(#x);));
            } else {
                zeros.extend(quote!(let #zero = #rt::zero_of(&#x);));
            }
            if self.is_scalar_param(i) && !by_ref {
                // A scalar's zero has no shape to restore.
                outs.push(quote!(#g_i.unwrap_or(#zero)));
            } else {
                outs.push(quote!(#rt::shaped(#zero, #g_i)));
            }
        }
        let result = one_or_tuple(&outs);
        let vjp = g.path(&Kind::Vjp.long(self.name()));
        let args = g.own_args();
        let (value, pullback, seed) = (local("value"), local("pullback"), local("seed"));
        self.user_companion(
            Mode::Vjp,
            quote! {
                #zeros
                let (#value, #pullback) = #vjp(#(#args),*);
                (#value, move |#seed| {
                    let (#(#gs,)*) = #pullback(#seed);
                    #result
                })
            },
        )
    }

    /// The derived mode's `__differential_h`: takes the tangents of the differentiated
    /// parameters, returns the result's (zero when it is `None`).
    fn user_differential(&self, g: &Group) -> Companion {
        let wrt = self.sig.wrt();
        let ds: Vec<Ident> = wrt.iter().map(|i| local(&format!("d{i}"))).collect();
        let input = one_or_tuple(&ds);
        let slots = (0..self.sig.params.len()).map(|i| match wrt.iter().position(|w| *w == i) {
            Some(k) => {
                let d = &ds[k];
                quote!(::core::option::Option::Some(#d))
            }
            None => quote!(::core::default::Default::default()),
        });
        let jvp = g.path(&Kind::Jvp.long(self.name()));
        let args = g.own_args();
        let (value, differential, zero) = (local("value"), local("differential"), local("zero"));
        self.user_companion(
            Mode::Jvp,
            quote! {
                let (#value, #differential) = #jvp(#(#args),*);
                let #zero = ::diff::__private::zero_of(&#value);
                (#value, move |#input| #differential((#(#slots,)*)).unwrap_or(#zero))
            },
        )
    }

    /// A free function `h`: its companions `__vjp_h`, .. in the registration's module
    /// (the registered mode's as items, the other mode's glob-imported from a hidden
    /// module, so that a registration of that mode shadows them), and its carrier `h`
    /// with the same companions as associated functions (`h::__vjp`), forwarding to those,
    /// so that they travel with the name `h` (see `names::companion_path`). With both
    /// modes registered in one module there are two carriers: the VJP registration's is an
    /// item and shadows the JVP registration's, glob-imported; both forward by name.
    fn free_function(&self) -> TokenStream {
        let g = Group {
            reg: self,
            receiver: Receiver::Param,
            assoc: false,
        };
        let (vis, name) = (&self.func.vis, self.name());
        let registered = g.item(&self.registered(&g), vis);
        let user = g.item(&self.registered_user(&g), vis);
        let public = syn::Visibility::Public(Default::default());
        let (this_gate, other_gate) = (self.gate(self.mode()), self.gate(other(self.mode())));
        let (derived, other_gate_def) = if self.other_mode_follows() {
            (
                self.derived(&g),
                quote!(pub use ::diff::__private::Available as #other_gate;),
            )
        } else {
            let msg = self.missing_message();
            (
                self.missing_modes(&g),
                quote! {
                    #[diagnostic::on_unimplemented(message = #msg, label = "needs the missing registration")]
                    pub trait #other_gate {}
                },
            )
        };
        let derived = derived.iter().map(|c| g.item(c, &public));
        // `self::{__vjp_h as __diff_reg_vjp_h, ..}` for the companions of `mode`.
        let aliases = |mode: Mode| {
            let kinds = Kind::ALL.into_iter().filter(|k| k.mode() == mode);
            let pairs = kinds.map(|k| {
                let (long, alias) = (k.long(name), self.alias(k));
                quote!(#long as #alias)
            });
            quote!(self::{#(#pairs),*})
        };
        let (registered_aliases, other_aliases) =
            (aliases(self.mode()), aliases(other(self.mode())));
        let m = format_ident!("__diff_derived_{}", self.user_fn());
        let forwarders = self.forwarders(&g);
        let forwarders = forwarders.iter().map(|c| g.item(c, vis));
        // Second order (emit/dual.rs): a registered derivative is first order only.
        let dual = DualSig::of(&self.sig);
        let why = format!("its derivative is registered (#[derivative(of = {name})]), written for a float type, which gives first order only; write the registration generic over its scalar (`fn {user}<T: Float>(..)`), which runs on dual numbers as it is, or differentiate the body of `{name}` with #[differentiable] instead", user = self.user_fn());
        let dual_item = |vis: &syn::Visibility, name: Ident| {
            let header = dual.header(vis, name, &self.output_tangent);
            let body = dual.stop(&why);
            quote!(#header #body)
        };
        let (dual_assoc, dual_sibling) = if self.sig.roles.scalars.is_empty() {
            (
                dual_item(vis, Kind::VjpDual.short()),
                dual_item(&public, Kind::VjpDual.long(name)),
            )
        } else {
            // A derivative registered generically runs on dual numbers as it is: the dual
            // companion is the reverse mode's.
            let args = g.own_args();
            let forward = |kind_name: Ident, callee: TokenStream, vis: &syn::Visibility| {
                let c = Companion {
                    name: kind_name,
                    ..self.slot_companion(Mode::Vjp, quote!(#callee(#(#args),*)))
                };
                g.item(&c, vis)
            };
            (
                forward(Kind::VjpDual.short(), g.path(&self.alias(Kind::Vjp)), vis),
                forward(
                    Kind::VjpDual.long(name),
                    g.path(&self.alias(Kind::Vjp)),
                    &public,
                ),
            )
        };
        // What each mode needs (`requirements.rs`): the mode's gate, which the
        // registrations of the module decide; second order, a generic registration's
        // reverse mode, else nothing gives it.
        let leaf = |what: &str| format_ident!("__diff_needs_{}_{}", what, self.user_fn());
        let (reverse, forward) = (leaf("reverse"), leaf("forward"));
        let (vjp_gate, jvp_gate) = (self.gate(Mode::Vjp), self.gate(Mode::Jvp));
        let (second_def, second) = if self.sig.roles.scalars.is_empty() {
            let (l, gate) = (
                leaf("second"),
                format_ident!("__diff_no_second_order_{}", self.user_fn()),
            );
            let message = crate::emit::dual::no_second_order(name, &why);
            let label = format!("second order of `{name}` needed here");
            (
                crate::requirements::missing(&l, &gate, &message, &label),
                quote!(#m::#l),
            )
        } else {
            (TokenStream::new(), quote!(#m::#reverse))
        };
        let carrier_attrs = quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
        };
        // (Declared `pub` in the hidden module, so that a caller's `Derivatives` may name
        // it whatever the function's visibility; the VJP registration's is imported by
        // name, and shadows the glob-imported ones.)
        let item_carrier = match self.mode() {
            Mode::Vjp => quote! {
                #[doc(hidden)]
                #[allow(unused_imports)]
                #vis use #m::#name;
            },
            Mode::Jvp => TokenStream::new(),
        };
        let carrier_def = quote!(#carrier_attrs pub struct #name {});
        let carrier = quote!(#m::#name);
        let (reverse_path, forward_path) = (quote!(#m::#reverse), quote!(#m::#forward));
        let holds = [
            crate::requirements::gated(&reverse_path, &vjp_gate.to_token_stream()),
            crate::requirements::gated(&forward_path, &jvp_gate.to_token_stream()),
        ];
        let derivatives =
            crate::requirements::implementation(&carrier, [reverse_path, forward_path, second]);
        quote! {
            #registered
            #user
            #[doc(hidden)]
            #[allow(unused_imports)]
            #vis use ::diff::__private::Available as #this_gate;
            #[doc(hidden)]
            #[allow(unused_imports)]
            #vis use #registered_aliases;
            #[doc(hidden)]
            #[allow(non_snake_case, non_camel_case_types)]
            mod #m {
                #[allow(unused_imports)]
                use super::*;
                #other_gate_def
                pub use #other_aliases;
                #carrier_def
                #(#derived)*
                #dual_sibling
                #[doc(hidden)]
                #[allow(dead_code)]
                pub struct #reverse;
                #[doc(hidden)]
                #[allow(dead_code)]
                pub struct #forward;
                #second_def
            }
            #[doc(hidden)]
            #[allow(unused_imports)]
            #vis use #m::*;
            #item_carrier
            impl #carrier {
                #(#forwarders)*
                #dual_assoc
            }
            #(#holds)*
            #derivatives
        }
    }

    /// Whether the registration is of a method of a type of the crate taking `&self`
    /// (its first parameter the receiver, by value, as for any method): its companions
    /// take `&self` too, and clone the receiver.
    fn ref_receiver(&self) -> bool {
        let Target::TypeMethod(ty, name) = target(&self.args.of) else {
            return false;
        };
        let owner = ty.segments.last().map(|s| s.ident.to_string());
        self.first_param_is(&ty)
            && owner
                .is_some_and(|o| crate::source::takes_ref_self(name.span(), &o, &name.to_string()))
    }

    fn type_method(&self, ty: &syn::Path) -> TokenStream {
        let g = Group {
            reg: self,
            receiver: if self.ref_receiver() {
                Receiver::Ref
            } else if self.first_param_is(ty) {
                Receiver::Value
            } else {
                Receiver::Param
            },
            assoc: true,
        };
        // (With the registration's visibility: a private one is its module's, like a
        // private function.)
        let vis = &self.func.vis;
        let registered = g.item(&self.registered(&g), vis);
        let user = g.item(&self.registered_user(&g), vis);
        // The derived mode's trait is named as the registering function (in the type
        // namespace), so that importing that function brings it.
        let tr = self.user_fn().clone();
        let derived = g.in_trait(tr, ty, vis, &self.derived(&g));
        quote! {
            impl #ty {
                #registered
                #user
            }
            #derived
        }
    }

    fn scalar_method(&self, ty: &syn::Path) -> syn::Result<TokenStream> {
        if self.sig.params.is_empty() {
            let owner = ty.to_token_stream();
            return Err(syn::Error::new(
                self.func.sig.paren_token.span.join(),
                format!("a derivative registered for a method of `{owner}` takes the receiver as its first parameter, e.g. `fn {}(x: {owner}) -> ...`", self.user_fn()),
            ));
        }
        let vis = &self.func.vis;
        let g = Group {
            reg: self,
            receiver: Receiver::Value,
            assoc: true,
        };
        let tr = format_ident!("__DiffRegistered_{}", self.user_fn());
        let mut out = g.in_trait(tr, ty, vis, &[self.registered(&g)]);
        if !has_std_rule(self.name()) {
            let g = Group {
                reg: self,
                receiver: Receiver::Ref,
                assoc: true,
            };
            let tr = format_ident!("__DiffDerived_{}", self.user_fn());
            out.extend(g.in_trait(tr, ty, vis, &self.derived(&g)));
        }
        Ok(out)
    }

    fn first_param_is(&self, ty: &syn::Path) -> bool {
        let want = ty.segments.last().map(|s| &s.ident);
        match self.func.sig.inputs.first() {
            Some(syn::FnArg::Typed(t)) => match &*t.ty {
                syn::Type::Path(p) => p.path.segments.last().map(|s| &s.ident) == want,
                _ => false,
            },
            _ => false,
        }
    }
}
