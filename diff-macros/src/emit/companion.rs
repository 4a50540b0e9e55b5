//! The companions `#[differentiable]` emits beside a function:
//! - `__vjp_f` / `__jvp_f`: the internal convention (one slot per parameter, `Option`
//!   tangents) used by calls from other differentiable functions;
//! - `__pullback_f` / `__differential_f`: the user's tangent types (tangents of the
//!   differentiated parameters only, zeros filled in) used by the operators.
use super::dual::DualSig;
use super::names::{self, Kind, Mode};
use super::primal::{Emitter, Recursion};
use crate::analysis::activity::Activity;
use crate::ir::{Function, Value};
use crate::lifting;
use crate::linear_map::{self, LinearMaps};
use crate::parse::signature::FnSig;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The statements of a companion's body, and the final `(value, linear map)` expression
/// (separate, so that an operator can keep the locals alive in its own scope).
pub fn body_parts(
    func: &Function,
    act: &Activity,
    maps: &LinearMaps,
    mode: Mode,
    params: Vec<TokenStream>,
    slots: usize,
    items: &[syn::Item],
) -> (TokenStream, TokenStream) {
    body_parts_with(func, (act, maps), mode, params, slots, items, |_| {})
}

/// [`body_parts`] with the emitter set up by `configure` (a function that may call
/// itself, a dual companion).
pub fn body_parts_with(
    func: &Function,
    (act, maps): (&Activity, &LinearMaps),
    mode: Mode,
    params: Vec<TokenStream>,
    slots: usize,
    items: &[syn::Item],
    configure: impl FnOnce(&mut Emitter<'_>),
) -> (TokenStream, TokenStream) {
    let mut e = Emitter::new(func, act, maps, mode, params);
    configure(&mut e);
    let constant = e.constant_params.clone();
    let slot = |i: usize| {
        if constant.contains(&i) {
            quote!(::core::option::Option::None)
        } else {
            param_slot(func, act, i)
        }
    };
    let entry = func.entry();
    let defs = linear_map::definitions(func, maps, mode);
    let primal = e.primal_region(entry);
    let built = linear_map::construct(func, maps, entry, mode, |v, saved| {
        if saved {
            e.saved_expr(v)
        } else {
            e.expr(v)
        }
    });
    let pat = linear_map::pattern(func, maps, entry, mode);
    let ret = func.region(entry).yields[0];
    let ret_expr = e.expr(ret);
    let lin = names::ident("linear_map");
    // The stacks of nested loops' tapes: made before the primal, read by the linear map
    // from the back (reverse) or the front (forward).
    let stacks: Vec<Ident> = maps.stacks().iter().map(|r| names::stack(*r)).collect();
    let copies: Vec<Ident> = maps
        .copies()
        .iter()
        .map(|v| names::copies(func, *v))
        .collect();
    let readers = match mode {
        Mode::Vjp => quote! { #(let mut #stacks = #stacks;)* },
        Mode::Jvp => {
            quote! { #(let mut #stacks = ::diff::__private::Stack::into_front(#stacks);)* }
        }
    };
    // `&mut` parameters: their final pointees follow the result in the entry's yields.
    let finals: Vec<Value> = func.region(entry).yields[1..].to_vec();
    // Whether the `&mut` parameter of final `k` is differentiated (its slot is not `()`).
    let differentiated = |k: usize| {
        let param = func.mutated.get(k).and_then(|i| func.param_value(*i));
        param.is_some_and(|p| act.varied.contains(&p))
    };
    let closure = match mode {
        Mode::Vjp if finals.is_empty() => {
            let seed = if act.is_active(ret) {
                let a = names::adjoint(func, ret);
                quote! { ::diff::__private::accumulate(&mut #a, seed); }
            } else {
                quote! { let _ = seed; }
            };
            let code = e.reverse_region(entry, seed);
            let outs = (0..slots).map(slot);
            quote! { move |seed| { let #pat = #lin; #readers #code (#(#outs,)*) } }
        }
        Mode::Vjp => {
            let ms: Vec<Ident> = (0..finals.len())
                .map(|k| names::ident(&format!("seed{k}")))
                .collect();
            let mut seed = TokenStream::new();
            let seeded = std::iter::once(true).chain((0..finals.len()).map(differentiated));
            for ((v, s), seeded) in std::iter::once(ret)
                .chain(finals.iter().copied())
                .zip(std::iter::once(names::ident("seed")).chain(ms.iter().cloned()))
                .zip(seeded)
            {
                if seeded && act.is_active(v) {
                    let a = names::adjoint(func, v);
                    seed.extend(quote! { ::diff::__private::accumulate_opt(&mut #a, #s); });
                }
            }
            let code = e.reverse_region(entry, seed);
            let outs = (0..slots).map(slot);
            quote! { move |(seed, #(#ms,)*)| { let #pat = #lin; #readers #code (#(#outs,)*) } }
        }
        Mode::Jvp => {
            let ins: Vec<Ident> = (0..slots)
                .map(|i| names::ident(&format!("d_in{i}")))
                .collect();
            let code = e.tangent_region(entry);
            let out = e.tan(ret);
            let out = if finals.is_empty() {
                out
            } else {
                let fs = finals.iter().enumerate().map(|(k, v)| {
                    if differentiated(k) {
                        e.tan(*v)
                    } else {
                        quote!(())
                    }
                });
                quote! { (#out, #(#fs,)*) }
            };
            quote! { move |(#(#ins,)*)| { let #pat = #lin; #readers #code #out } }
        }
    };
    // Write the final pointees back through the `&mut` parameters.
    let write_back = func.mutated.iter().zip(&finals).map(|(i, v)| {
        let p = func.param_value(*i).map(|p| e.name(p));
        let val = e.expr(*v);
        quote! { ::diff::__private::Pointee::store(&mut *#p, #val); }
    });
    // (The result first: it may read the final pointees, `self.x` after `self.x *= k`,
    // which the write-back moves.)
    let (ret_expr, result) = if finals.is_empty() {
        (ret_expr, TokenStream::new())
    } else {
        let r = names::ident("result");
        (quote!(#r), quote! { let #r = #ret_expr; })
    };
    let stmts = quote! {
        #[allow(unused_imports)]
        use ::diff::__private::rules::*;
        #(#items)*
        #defs
        #(let mut #stacks = ::diff::__private::Stack::new();)*
        #(let mut #copies = ::std::vec::Vec::new();)*
        #primal
        let #lin = #built;
        #result
        #(#write_back)*
    };
    let closure = match e.recursion.as_ref().filter(|r| r.mutual) {
        Some(r) => {
            let boxed = &r.boxed;
            quote! { { let #lin: #boxed = ::std::boxed::Box::new(#closure); #lin } }
        }
        None => closure,
    };
    (stmts, quote! { (#ret_expr, #closure) })
}

/// What the pullback returns for parameter `i`: its adjoint slot, `None` when the
/// parameter is differentiated but inactive, `()` when it is not differentiated.
fn param_slot(func: &Function, act: &Activity, i: usize) -> TokenStream {
    match func.param_value(i) {
        Some(v) if act.is_active(v) => {
            let a = names::adjoint(func, v);
            quote!(#a)
        }
        Some(v) if act.varied.contains(&v) => quote!(::core::option::Option::None),
        _ => quote!(()),
    }
}

/// The four companion items of a function with signature `sig`.
pub struct Companions<'a> {
    pub sig: &'a FnSig,
    pub vis: &'a syn::Visibility,
    pub func: &'a Function,
    pub act: &'a Activity,
    pub maps: &'a LinearMaps,
    pub items: &'a [syn::Item],
}

/// The companions' signatures (headers, linear-map types, the user-facing wrappers) for a
/// function with signature `sig`.
pub struct Signatures<'a> {
    pub sig: &'a FnSig,
    pub vis: &'a syn::Visibility,
    /// Whether the companions are associated items (called through `Self::`).
    pub in_impl: bool,
}

impl Companions<'_> {
    fn signatures(&self) -> Signatures<'_> {
        Signatures::of(self.sig, self.vis)
    }

    /// All four items.
    pub fn emit(&self, output_tangent: &TokenStream) -> TokenStream {
        let sig = self.sig;
        let sh = self.signatures();
        let n = sig.params.len();
        let params: Vec<TokenStream> = sig.params.iter().map(|p| p.ident.clone()).collect();
        let (slots, caps) = (sig.slots(), sig.dyn_lifetime());
        let rec = |boxed: TokenStream| Some(Recursion::of(sig, boxed));
        let (seed, dout) = (
            sh.seed_type(output_tangent),
            sh.differential_output(output_tangent),
        );
        let vjp_box =
            quote!(::std::boxed::Box<dyn ::core::ops::FnOnce(#seed) -> (#(#slots,)*) #caps>);
        let jvp_box =
            quote!(::std::boxed::Box<dyn ::core::ops::FnOnce((#(#slots,)*)) -> #dout #caps>);
        let (st, r) = body_parts_with(
            self.func,
            (self.act, self.maps),
            Mode::Vjp,
            params.clone(),
            n,
            self.items,
            |e| e.recursion = rec(vjp_box),
        );
        // (The original cannot be named with its type arguments when it takes an
        // `impl Trait`, `differentiable::IMPL_PARAM`.)
        let names_impl_trait = sig.generics.type_params().any(|t| {
            t.ident
                .to_string()
                .starts_with(crate::differentiable::IMPL_PARAM)
        });
        let original = (!names_impl_trait).then(|| sh.original());
        let checks = sig.not_differentiable.iter().map(|t| {
            quote! { ::diff::__private::left_out_of_the_derivative::<#t, _>(); }
        });
        let original = original.map(|o| quote!(let _ = #o;));
        let vjp_body = quote! { { #original #(#checks)* #st #r } };
        let (st, r) = body_parts_with(
            self.func,
            (self.act, self.maps),
            Mode::Jvp,
            params.clone(),
            n,
            self.items,
            |e| e.recursion = rec(jvp_box),
        );
        let jvp_body = quote! { { #st #r } };
        let dual_body = self
            .dual_body(&sh, params, output_tangent)
            .unwrap_or_else(|why| DualSig::of(sig).stop(&why));
        sh.items(output_tangent, [vjp_body, jvp_body, dual_body])
    }

    /// The body of the dual companion (`dual.rs`): the `__vjp` of a function generic over
    /// its scalar; for one written for `f64`, the reverse sweep of the IR `lifting.rs`
    /// rewrites to dual numbers, or why there is none.
    fn dual_body(
        &self,
        sh: &Signatures<'_>,
        params: Vec<TokenStream>,
        output_tangent: &TokenStream,
    ) -> Result<TokenStream, String> {
        let sig = self.sig;
        let ds = DualSig::of(sig);
        if !sig.trait_scalars.is_empty() {
            return Err(format!(
                "a method of a trait generic over its scalars ({}) has second order in its implementations for `f64` or `f32` only",
                sig.trait_scalars.join(", ")
            ));
        }
        // Generic over the scalar, or over the differentiated parameters' types: the
        // `__vjp` at the dual ones, given each argument as it takes it: a borrow taken
        // as a `Cow` (`generic_borrows`) borrowed again, a `Same<T>` unwrapped.
        let over_scalar = !sig.roles.scalars.is_empty();
        if let Some((why, _)) = over_scalar
            .then(|| crate::emit::dual::converts_scalar(&sig.generics))
            .flatten()
        {
            return Err(why);
        }
        if over_scalar || ds.forwards() {
            let (vjp, args) = (sh.callee(Mode::Vjp), sh.call_args());
            let borrows = crate::emit::dual::generic_borrows(sig);
            let same = ds.same_params();
            let args = args.iter().enumerate().map(|(i, a)| {
                if borrows.get(i).is_some_and(Option::is_some) {
                    quote!(&*#a)
                } else if !over_scalar && same[i] {
                    quote!(#a.0)
                } else {
                    quote!(#a)
                }
            });
            return Ok(quote! {{ #vjp(#(#args),*) }});
        }
        self.lifted_body(&ds, params, output_tangent)
    }

    /// The companion of a method taking its receiver as the dual twin of its struct
    /// (`twin.rs`), `__vjp_dual_self_m(this, ..)`, which a dual companion calls on a
    /// struct it built of dual numbers: the receiver is differentiated like the other
    /// parameters. Nothing unless the method is of a struct with a twin (its receiver
    /// `self`, `&self` or `&mut self`, `twin::takes_twin`).
    pub fn twin_receiver(&self, output_tangent: &TokenStream) -> TokenStream {
        let sig = self.sig;
        let Some(ds) = DualSig::of_twin_receiver(sig) else {
            return TokenStream::new();
        };
        let header = ds.header(self.vis, names::twin_receiver(&sig.ident), output_tangent);
        let params = sig.params.iter().map(|p| p.ident.clone()).collect();
        let body = if sig.recursive {
            ds.stop("a method calling itself, on a struct's dual twin")
        } else {
            self.lifted_body(&ds, params, output_tangent)
                .unwrap_or_else(|why| ds.stop(&why))
        };
        quote! { #header #body }
    }

    /// The body of a dual companion of a function written for `f64` (`ds` its
    /// signature): the reverse sweep of the IR `lifting.rs` rewrites to dual numbers, or
    /// why there is none.
    fn lifted_body(
        &self,
        ds: &DualSig<'_>,
        mut params: Vec<TokenStream>,
        output_tangent: &TokenStream,
    ) -> Result<TokenStream, String> {
        let sig = self.sig;
        let Some(scalar) = ds.liftable() else {
            return Err(ds.why_not());
        };
        let mut param_structs = ds.param_structs();
        if ds.is_twin_receiver() {
            // `this`, the twin, by value (`&mut` for `&mut self`); the body reads a
            // `&self` receiver by reference.
            let p = &sig.params[0];
            params[0] = if p.by_ref && !p.mutable {
                quote!((&this))
            } else {
                quote!(this)
            };
            param_structs[0] = Some("Self".to_string());
        }
        // Otherwise a receiver (of a struct without a twin, or kept plain) is a constant
        // here: its slot stays zero.
        let receiver = sig.has_receiver() && !ds.is_twin_receiver();
        let (constant, wrt): (Vec<usize>, Vec<usize>) =
            sig.wrt().into_iter().partition(|i| receiver && *i == 0);
        // The float fields of the parameters held plain (not the twins'), and those of
        // their fields of a struct with a twin (`origin.x` of a `Ray` holding a `Vec3`).
        let param_fields: Vec<Vec<String>> = sig
            .param_fields
            .iter()
            .zip(&param_structs)
            .map(|(fields, twin)| match twin {
                Some(_) => Vec::new(),
                None => fields
                    .iter()
                    .flat_map(|(name, ty)| {
                        if crate::emit::dual::is_floats(ty, scalar) {
                            return vec![name.clone()];
                        }
                        let inner = crate::differentiable::type_name(ty);
                        sig.twins
                            .iter()
                            .filter(|(n, _)| inner.as_ref() == Some(n))
                            .flat_map(|(_, t)| t.floats.iter().map(|f| format!("{name}.{f}")))
                            .collect()
                    })
                    .collect(),
            })
            .collect();
        // As the body names them: `Self` too, for the block's struct.
        let twins: Vec<(String, crate::twin::Twin)> = ds
            .twins()
            .iter()
            .filter_map(|n| {
                let of = if n == "Self" {
                    sig.self_twin.as_ref()?
                } else {
                    n
                };
                let (_, t) = sig.twins.iter().find(|(m, _)| m == of)?;
                Some((n.clone(), t.clone()))
            })
            .collect();
        let generic_params: Vec<usize> = (0..sig.params.len())
            .filter(|i| {
                sig.declared_type(*i)
                    .as_ref()
                    .and_then(crate::differentiable::type_name)
                    .is_some_and(|n| sig.generic_structs.contains(&n))
            })
            .collect();
        let param_discrete: Vec<Vec<usize>> = (0..sig.params.len())
            .map(|i| match sig.declared_type(i) {
                Some(syn::Type::Tuple(t)) => (0..t.elems.len())
                    .filter(|k| crate::parse::types::is_discrete(&t.elems[*k]))
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        let discrete_params: Vec<usize> = (0..sig.params.len())
            .filter(|i| {
                sig.declared_type(*i)
                    .is_some_and(|t| crate::parse::types::is_discrete(&t))
            })
            .collect();
        let type_params: Vec<String> = sig
            .generics
            .type_params()
            .map(|t| t.ident.to_string())
            .collect();
        let floats = lifting::FloatInputs {
            params: &ds.float_params(),
            param_fields: &param_fields,
            twins: &twins,
            param_structs: &param_structs,
            param_elements: &ds.param_elements(),
            param_discrete: &param_discrete,
            discrete_params: &discrete_params,
            type_params: &type_params,
            generic_structs: (&sig.generic_structs, &generic_params),
            in_closure: false,
            generic_methods: &[],
        };
        let lifted = lifting::lift(self.func, self.act, &wrt, floats, &scalar.to_string());
        let lifted = lifted?;
        let act = Activity::analyze(&lifted, &wrt);
        let maps = LinearMaps::analyze(&lifted, &act);
        let (st, r) = body_parts_with(
            &lifted,
            (&act, &maps),
            Mode::Vjp,
            params,
            sig.params.len(),
            self.items,
            |e| {
                e.dual = true;
                e.constant_params = constant;
                e.recursion = Some(Recursion::of(sig, ds.boxed_pullback(output_tangent)));
            },
        );
        let conversions = ds.conversions();
        let aliases = crate::twin::aliases(&lifted, scalar);
        Ok(quote! {{
            #aliases
            #conversions
            #[allow(unused_imports)]
            use ::diff::__private::Float as _;
            #st
            #r
        }})
    }
}

impl Companions<'_> {
    /// After an error: the four items with the signatures the function's callers expect,
    /// whose bodies never run (the crate does not compile), so that the one error is
    /// not followed by a missing `__vjp_f` at every caller.
    pub fn stand_ins(
        sig: &FnSig,
        vis: &syn::Visibility,
        output_tangent: &TokenStream,
    ) -> TokenStream {
        let stand_in = quote! {
            { (::core::unreachable!(), move |_| ::core::unreachable!()) }
        };
        // (And the one taking the receiver as its struct's twin, which callers' dual
        // companions name.)
        let twin = DualSig::of_twin_receiver(sig).map(|ds| {
            let header = ds.header(vis, names::twin_receiver(&sig.ident), output_tangent);
            quote! { #header #stand_in }
        });
        let mut items = Signatures::of(sig, vis).items(
            output_tangent,
            [stand_in.clone(), stand_in.clone(), stand_in],
        );
        items.extend(twin);
        items
    }
}

impl<'a> Signatures<'a> {
    /// The signatures of the companions of a function with signature `sig`, associated
    /// functions when it is not a free function.
    pub fn of(sig: &'a FnSig, vis: &'a syn::Visibility) -> Self {
        Signatures {
            sig,
            vis,
            in_impl: !sig.detached,
        }
    }

    /// The companion items, given the bodies (blocks) of `__vjp_f` and `__jvp_f`: those
    /// two, then `__pullback_f` and `__differential_f` calling them. A function with
    /// `&mut` parameters is differentiated where it is called; the operators take
    /// values, so it has no user-shaped companions.
    fn items(&self, output_tangent: &TokenStream, bodies: [TokenStream; 3]) -> TokenStream {
        let [vjp_body, jvp_body, dual_body] = bodies;
        let vjp = self.header(self.name(Kind::Vjp), self.vjp_type(output_tangent));
        let jvp = self.header(self.name(Kind::Jvp), self.jvp_type(output_tangent));
        let dual = self.header_of(
            self.vis,
            self.name(Kind::VjpDual),
            Kind::VjpDual,
            output_tangent,
        );
        // (The operators take the receiver as an input: none for a constant one.)
        let user = self.sig.mutated().is_empty() && !self.sig.constant_receiver;
        let pullback = user.then(|| self.user_pullback(output_tangent));
        let differential = user.then(|| self.user_differential(output_tangent));
        quote! {
            #vjp #vjp_body
            #jvp #jvp_body
            #dual #dual_body
            #pullback
            #differential
        }
    }

    /// The header of companion `kind` named `name`.
    fn header_of(
        &self,
        vis: &syn::Visibility,
        name: Ident,
        kind: Kind,
        output_tangent: &TokenStream,
    ) -> TokenStream {
        if kind == Kind::VjpDual && self.sig.roles.scalars.is_empty() {
            DualSig::of(self.sig).header(vis, name, output_tangent)
        } else if kind == Kind::VjpDual && !self.sig.trait_scalars.is_empty() {
            let (decls, out, wher) = crate::emit::dual::at_trait_duals(
                self.sig,
                self.sig.params.iter().map(|p| p.decl.clone()).collect(),
                self.return_type(kind, output_tangent),
            );
            let mut generics = self.sig.generics.clone();
            generics.make_where_clause().predicates.extend(wher);
            self.header_decls_with(vis, name, decls.into_iter(), out, &generics)
        } else if kind == Kind::VjpDual {
            let borrows = crate::emit::dual::generic_borrows(self.sig);
            let decls = self.sig.params.iter().zip(&borrows).map(|(p, b)| match b {
                Some((lt, ty)) => {
                    let id = &p.ident;
                    quote!(#id: ::std::borrow::Cow<#lt, #ty>)
                }
                None => p.decl.clone(),
            });
            // (Without a conversion of the scalar to a float, which dual numbers cannot
            // make: the companion then stops.)
            let generics = crate::emit::dual::converts_scalar(&self.sig.generics)
                .map_or_else(|| self.sig.generics.clone(), |(_, g)| g);
            self.header_decls_with(
                vis,
                name,
                decls,
                self.return_type(kind, output_tangent),
                &generics,
            )
        } else {
            self.header_with(vis, name, self.return_type(kind, output_tangent))
        }
    }

    /// For a method a trait marks: the companion taking the receiver as its struct's
    /// twin (`__vjp_dual_self_m`), declared in the trait for the implementations for
    /// structs with a twin to define (a caller's dual companion calls it on a struct it
    /// built of dual numbers); the others keep this one, which stops, saying why.
    pub fn twin_receiver_declaration(
        &self,
        output_tangent: &TokenStream,
        scalar: &str,
        provided: bool,
    ) -> TokenStream {
        let s = format_ident!("{}", scalar);
        let mut sig = self.sig.clone();
        let wher = &mut sig.generics.make_where_clause().predicates;
        wher.push(syn::parse_quote!(Self: ::diff::__private::Lift<#s>));
        wher.push(syn::parse_quote!(
            <Self as ::diff::__private::Lift<#s>>::Lifted: ::diff::Differentiable
        ));
        let ds = DualSig::of_declared_twin_receiver(&sig, scalar);
        let header = ds.header(self.vis, names::twin_receiver(&sig.ident), output_tangent);
        let why = if provided {
            format!("`{0}` is provided by its trait, and a trait's provided method is not followed on a struct's dual twin yet: define `{0}` in the struct's implementation of the trait (the trait's body, marked #[differentiable])", sig.ident)
        } else {
            "its receiver's type has no dual twin (derive Differentiable and Clone for the struct), or its implementation for it does not define this".to_string()
        };
        let body = ds.stop(&why);
        quote! { #header #body }
    }

    /// For a method declared in a trait without a body: the companions it declares. Each
    /// implementation of the method marked `#[differentiable]` defines them; one that is
    /// not marked keeps these defaults, which stop the build (when instantiated) with a
    /// message asking for the mark, and never run.
    pub fn declarations(&self, output_tangent: &TokenStream) -> TokenStream {
        let message = format!(
            "`{}` is #[differentiable] in its trait: mark its implementation #[differentiable] too",
            self.sig.ident
        );
        let unmarked = quote! {{
            struct Unmarked<T: ?::core::marker::Sized>(::core::marker::PhantomData<T>);
            impl<T: ?::core::marker::Sized> Unmarked<T> {
                const ERROR: () = ::core::panic!(#message);
            }
            #[allow(clippy::let_unit_value)]
            let () = Unmarked::<Self>::ERROR;
            (::core::unreachable!(), move |_| ::core::unreachable!())
        }};
        self.items(
            output_tangent,
            [unmarked.clone(), unmarked.clone(), unmarked],
        )
    }

    /// The kinds of companions the function has: a function with `&mut` parameters has
    /// no user-shaped ones.
    fn kinds(&self) -> Vec<Kind> {
        if self.sig.mutated().is_empty() {
            vec![
                Kind::Vjp,
                Kind::Jvp,
                Kind::VjpDual,
                Kind::Pullback,
                Kind::Differential,
            ]
        } else {
            vec![Kind::Vjp, Kind::Jvp, Kind::VjpDual]
        }
    }

    /// The return type of companion `kind`.
    fn return_type(&self, kind: Kind, output_tangent: &TokenStream) -> TokenStream {
        match kind {
            Kind::Vjp | Kind::VjpDual => self.vjp_type(output_tangent),
            Kind::Jvp => self.jvp_type(output_tangent),
            Kind::Pullback => self.user_pullback_type(output_tangent, &self.user_tangents().1),
            Kind::Differential => {
                self.user_differential_type(output_tangent, &self.user_tangents().1)
            }
        }
    }

    /// The companion's name: `__vjp` as an associated function of a free function's
    /// carrier, `__vjp_f` beside a method.
    fn name(&self, kind: Kind) -> Ident {
        if self.sig.constant_receiver {
            kind.constant_receiver(&self.sig.ident)
        } else if self.in_impl {
            kind.long(&self.sig.ident)
        } else {
            kind.short()
        }
    }

    /// For a free function `f`, the companions under the names calls by path look up
    /// (`m::__vjp_f`, see [`names::companion_path`]), forwarding to the carrier's
    /// (`f::__vjp`). Public: the `use` re-exporting them carries the function's
    /// visibility.
    pub fn siblings(&self, output_tangent: &TokenStream) -> TokenStream {
        let public = syn::Visibility::Public(Default::default());
        self.forwarders(output_tangent, &public, |kind| kind.long(&self.sig.ident))
    }

    /// For a free function `f` in a module also named `f` (`mod f;` holding `pub fn f`),
    /// the carrier's companions under their own names (`f::__vjp`) as items of the
    /// module, which a path `f::__vjp` names where the module shadows the carrier (`mod
    /// f; pub use f::*;`). Visible in the crate, as the carrier then is.
    pub fn module_forwarders(&self, output_tangent: &TokenStream) -> TokenStream {
        let in_crate: syn::Visibility = syn::parse_quote!(pub(crate));
        self.forwarders(output_tangent, &in_crate, Kind::short)
    }

    /// The companions named `name(kind)` with visibility `vis`, calling the carrier's.
    fn forwarders(
        &self,
        output_tangent: &TokenStream,
        vis: &syn::Visibility,
        name: impl Fn(Kind) -> Ident,
    ) -> TokenStream {
        let turbofish = self.turbofish();
        let args = self.call_args();
        let carrier = &self.sig.ident;
        self.kinds()
            .into_iter()
            .map(|kind| {
                let header = self.header_of(vis, name(kind), kind, output_tangent);
                let short = kind.short();
                quote! { #header { #carrier::#short #turbofish(#(#args),*) } }
            })
            .collect()
    }

    /// `(R, impl FnOnce(RT) -> (slots..))`.
    pub fn vjp_type(&self, output_tangent: &TokenStream) -> TokenStream {
        let (out, slots, caps) = (&self.sig.output, self.sig.slots(), self.sig.captures());
        let seed = self.seed_type(output_tangent);
        quote!((#out, impl ::core::ops::FnOnce(#seed) -> (#(#slots,)*) #caps))
    }

    /// What a pullback takes: the result's tangent, or, for a function with `&mut`
    /// parameters, `(Option<result tangent>, pointees' slots..)`.
    pub fn seed_type(&self, output_tangent: &TokenStream) -> TokenStream {
        let m = self.sig.mutated_slots();
        if m.is_empty() {
            output_tangent.clone()
        } else {
            quote!((::core::option::Option<#output_tangent>, #(#m,)*))
        }
    }

    /// What a differential returns: `Option<result tangent>`, or, for a function with
    /// `&mut` parameters, `(Option<result tangent>, pointees' slots..)`.
    pub fn differential_output(&self, output_tangent: &TokenStream) -> TokenStream {
        let m = self.sig.mutated_slots();
        if m.is_empty() {
            quote!(::core::option::Option<#output_tangent>)
        } else {
            quote!((::core::option::Option<#output_tangent>, #(#m,)*))
        }
    }

    /// `(R, impl FnOnce((slots..)) -> Option<RT>)`.
    pub fn jvp_type(&self, output_tangent: &TokenStream) -> TokenStream {
        let (out, slots, caps) = (&self.sig.output, self.sig.slots(), self.sig.captures());
        let ret = self.differential_output(output_tangent);
        quote!((#out, impl ::core::ops::FnOnce((#(#slots,)*)) -> #ret #caps))
    }

    /// The attributes and signature of a companion.
    pub fn header(&self, name: Ident, ret: TokenStream) -> TokenStream {
        self.header_with(self.vis, name, ret)
    }

    fn header_with(&self, vis: &syn::Visibility, name: Ident, ret: TokenStream) -> TokenStream {
        let decls = self.sig.params.iter().map(|p| p.decl.clone());
        self.header_decls_with(vis, name, decls, ret, &self.sig.generics)
    }

    /// The header with the parameters `decls` and the generics `generics`.
    fn header_decls_with(
        &self,
        vis: &syn::Visibility,
        name: Ident,
        decls: impl Iterator<Item = TokenStream>,
        ret: TokenStream,
        generics: &syn::Generics,
    ) -> TokenStream {
        let (gen, _, wher) = generics.split_for_impl();
        quote! {
            #[doc(hidden)]
            #[inline]
            #[allow(dead_code, unreachable_code, unused_mut, unused_variables, unused_parens, non_snake_case, clippy::all, clippy::pedantic)]
            #vis fn #name #gen (#(#decls),*) -> #ret #wher
        }
    }

    /// The parameters' names, as arguments.
    pub fn call_args(&self) -> Vec<&TokenStream> {
        self.sig.params.iter().map(|p| &p.ident).collect()
    }

    pub fn user_tangents(&self) -> (Vec<usize>, TokenStream) {
        let wrt = self.sig.wrt();
        let ts: Vec<&TokenStream> = wrt
            .iter()
            .map(|i| self.sig.params[*i].tangent.as_ref().expect("wrt"))
            .collect();
        let ty = if ts.len() == 1 {
            quote!(#(#ts)*)
        } else {
            quote!((#(#ts,)*))
        };
        (wrt, ty)
    }

    /// `(R, impl FnOnce(RT) -> user tangents)`: what `__pullback_f` returns.
    pub fn user_pullback_type(
        &self,
        output_tangent: &TokenStream,
        user: &TokenStream,
    ) -> TokenStream {
        let (out, caps) = (&self.sig.output, self.sig.captures());
        quote!((#out, impl ::core::ops::FnOnce(#output_tangent) -> #user #caps))
    }

    /// `(R, impl FnOnce(user tangents) -> RT)`: what `__differential_f` returns.
    pub fn user_differential_type(
        &self,
        output_tangent: &TokenStream,
        user: &TokenStream,
    ) -> TokenStream {
        let (out, caps) = (&self.sig.output, self.sig.captures());
        quote!((#out, impl ::core::ops::FnOnce(#user) -> #output_tangent #caps))
    }

    pub fn user_pullback(&self, output_tangent: &TokenStream) -> TokenStream {
        let (wrt, ty) = self.user_tangents();
        let header = self.header(
            self.name(Kind::Pullback),
            self.user_pullback_type(output_tangent, &ty),
        );
        let vjp = self.callee(Mode::Vjp);
        let args = self.call_args();
        let gs: Vec<Ident> = (0..self.sig.params.len())
            .map(|i| names::ident(&format!("g{i}")))
            .collect();
        let mut zeros = TokenStream::new();
        let mut outs = Vec::new();
        for i in &wrt {
            let (p, g) = (&self.sig.params[*i], &gs[*i]);
            let id = &p.ident;
            let scalar = p.tangent.as_ref().is_some_and(|t| {
                let t = t.to_string();
                t == "f64" || t == "f32" || self.sig.roles.scalars.contains(&t)
            });
            if scalar && !p.by_ref {
                // A scalar's zero has no shape to restore.
                let z = names::ident(&format!("zero{i}"));
                zeros.extend(quote!(let #z = ::diff::__private::zero_of(&#id);));
                outs.push(quote!(#g.unwrap_or(#z)));
            } else {
                let z = names::ident(&format!("zero{i}"));
                let r = if p.by_ref { quote!(#id) } else { quote!(&#id) };
                let later = zero_later(r);
                zeros.extend(quote!(let #z = #later;));
                outs.push(quote!(::diff::__private::ZeroLater::finish(#z, #g)));
            }
        }
        let result = if outs.len() == 1 {
            quote!(#(#outs)*)
        } else {
            quote!((#(#outs,)*))
        };
        quote! {
            #header {
                #zeros
                let (value, pullback) = #vjp(#(#args),*);
                (value, move |seed| {
                    let (#(#gs,)*) = pullback(seed);
                    #result
                })
            }
        }
    }

    pub fn user_differential(&self, output_tangent: &TokenStream) -> TokenStream {
        let (wrt, ty) = self.user_tangents();
        let header = self.header(
            self.name(Kind::Differential),
            self.user_differential_type(output_tangent, &ty),
        );
        let jvp = self.callee(Mode::Jvp);
        let args = self.call_args();
        let ds: Vec<Ident> = wrt.iter().map(|i| names::ident(&format!("d{i}"))).collect();
        let input = if ds.len() == 1 {
            quote!(#(#ds)*)
        } else {
            quote!((#(#ds,)*))
        };
        let slots = (0..self.sig.params.len()).map(|i| match wrt.iter().position(|w| *w == i) {
            Some(k) => {
                let d = &ds[k];
                quote!(::core::option::Option::Some(#d))
            }
            None => quote!(::core::default::Default::default()),
        });
        quote! {
            #header {
                let (value, differential) = #jvp(#(#args),*);
                let zero = ::diff::__private::zero_of(&value);
                (value, move |#input| differential((#(#slots,)*)).unwrap_or(zero))
            }
        }
    }

    /// The path of the original function (`f::<T>`, `Self::f`): the companions name it
    /// so that a function used only through the operators is not dead code.
    pub fn original(&self) -> TokenStream {
        let (name, turbofish) = (&self.sig.ident, self.turbofish());
        if self.in_impl {
            quote!(Self::#name #turbofish)
        } else {
            quote!(#name #turbofish)
        }
    }

    /// The path calling a sibling companion: `Self::__vjp` in a free function's carrier,
    /// `Self::__vjp_f` in an `impl`.
    pub fn callee(&self, mode: Mode) -> TokenStream {
        let (name, turbofish) = (self.name(Kind::of(mode)), self.turbofish());
        quote!(Self::#name #turbofish)
    }

    fn turbofish(&self) -> TokenStream {
        let tys = self.own_type_args();
        if tys.is_empty() {
            TokenStream::new()
        } else {
            quote!(::<#(#tys),*>)
        }
    }

    fn own_type_args(&self) -> Vec<TokenStream> {
        self.sig
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Type(t) => {
                    let id = &t.ident;
                    Some(quote!(#id))
                }
                syn::GenericParam::Const(c) => {
                    let id = &c.ident;
                    Some(quote!(#id))
                }
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect()
    }
}

/// The zero tangent of the value `reference` points to, built only if the adjoint lacks
/// its shape (`ZeroProbe` in diff-core: the probe's method is resolved here, where the
/// type is known).
pub(crate) fn zero_later(reference: TokenStream) -> TokenStream {
    quote! {{
        #[allow(unused_imports)]
        use ::diff::__private::{ProbeAny as _, ProbeLength as _};
        ::diff::__private::zero_now((&::diff::__private::ZeroProbe(#reference)).zero_later())
    }}
}
