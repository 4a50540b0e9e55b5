//! `#[derive(Differentiable)]` for structs.
//!
//! For
//! ```text
//! #[derive(Differentiable)]
//! pub struct Model { w: Vec<f64>, b: f64, #[no_derivative] name: String }
//! ```
//! this emits
//! ```text
//! pub struct ModelTangent {
//!     pub w: <Vec<f64> as ::diff::Differentiable>::TangentVector,
//!     pub b: <f64 as ::diff::Differentiable>::TangentVector,
//! }
//! ```
//! with `Clone`, `Debug`, `PartialEq`, `::diff::VectorSpace` and `::diff::InnerProduct` impls
//! (all fieldwise), and `impl ::diff::Differentiable for Model` with
//! `type TangentVector = ModelTangent`.
//!
//! Tuple structs get a tuple tangent, unit-like structs a unit-like one. Generic parameters are
//! kept on the tangent only when a differentiable field (or a kept parameter's bounds) mentions
//! them: an unused parameter is a compile error (E0392), and a hidden `PhantomData` field would
//! stop users from building tangents with a struct literal. `Clone`, `Debug` and `PartialEq`
//! are written out rather than derived, so that their bounds are on the fields' tangent types
//! (`<T as Differentiable>::TangentVector: Debug`) and not on the parameters (`T: Debug`).

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, Data, DeriveInput, Fields, GenericParam, Generics, Ident, Index, Lifetime, Member,
    Type, WherePredicate,
};

/// The field attribute that leaves a field out of the tangent.
const NO_DERIVATIVE: &str = "no_derivative";

/// Expands `#[derive(Differentiable)]`; errors become `compile_error!` invocations.
pub fn expand(input: DeriveInput) -> TokenStream {
    match Derive::new(&input) {
        Ok(derive) => {
            let items = derive.emit();
            let twin = dual_twin(&input);
            let generic = generic_lift(&input);
            quote!(#items #twin #generic)
        }
        Err(error) => error.to_compile_error(),
    }
}

/// The struct's dual twin (`twin.rs`), for second order: a struct of the same fields
/// with those built of floats holding dual numbers, Differentiable (derived the same
/// way), and the conversions `Lift`/`LiftTo` into it and `Plain` out of it. Nothing for
/// a generic struct, which holds dual numbers as it is, or one with no twin.
fn dual_twin(input: &DeriveInput) -> TokenStream {
    let Data::Struct(data) = &input.data else {
        return TokenStream::new();
    };
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let constant = |f: &syn::Field| has_no_derivative(&f.attrs).unwrap_or(true);
    let member = |i: usize, f: &syn::Field| match &f.ident {
        Some(id) => Member::Named(id.clone()),
        None => Member::Unnamed(Index::from(i)),
    };
    let Some(twin) = crate::twin::of_fields(
        data.fields
            .iter()
            .enumerate()
            .map(|(i, f)| (member_name(&member(i, f)), constant(f), &f.ty)),
    )
    .and_then(|t| {
        let seen = crate::source::seen(&input.ident);
        crate::twin::resolve(t, |n| seen.as_ref()?.nested_twin(n))
    }) else {
        return TokenStream::new();
    };
    let (name, vis) = (&input.ident, &input.vis);
    let dual = crate::twin::ident(&name.unraw().to_string(), name.span());
    let scalar = Ident::new(twin.scalar, Span::call_site());
    let mut twin_fields = data.fields.clone();
    let mut lifts = Vec::new();
    let mut plains = Vec::new();
    let mut lifts_ref = Vec::new();
    let mut copy = true;
    for (i, f) in twin_fields.iter_mut().enumerate() {
        let m = member(i, f);
        let floats = twin.floats.contains(&member_name(&m));
        let nested = twin.nested.iter().find(|(n, _)| *n == member_name(&m));
        let elements = twin
            .nested_elements
            .iter()
            .find(|(n, _)| *n == member_name(&m));
        copy &= crate::twin::copy(&f.ty);
        if let Some((_, inner)) = elements {
            // A `Vec` or array of a struct: of its twin (no `Clone` asked of the struct).
            let tokens = &f.ty;
            let array = matches!(tokens, syn::Type::Array(_));
            let twin_ident = crate::twin::ident(inner, f.ty.span());
            let renamed = crate::emit::dual::twins_lifted(
                &quote!(#tokens),
                None,
                &scalar,
                std::slice::from_ref(inner),
            );
            f.ty = syn::parse2(renamed).unwrap_or_else(|_| syn::parse_quote!(#twin_ident));
            copy = false;
            lifts.push(quote!(#m: ::diff::__private::Lift::<#scalar>::lift(self.#m)));
            plains.push(quote!(#m: ::diff::__private::Plain::plain(&self.#m)));
            lifts_ref.push(if array {
                quote!(#m: self.#m.each_ref().map(::diff::__private::Lift::<#scalar>::lift))
            } else {
                quote!(#m: ::core::iter::FromIterator::from_iter(
                    self.#m.iter().map(::diff::__private::Lift::<#scalar>::lift)
                ))
            });
        } else if let Some((_, inner)) = nested {
            // Holds the nested struct's twin (no `Clone` asked of the struct itself),
            // reached through the field's type, however it is named there.
            let _ = inner;
            let ty = &f.ty;
            f.ty = syn::parse_quote!(<#ty as ::diff::__private::Lift<#scalar>>::Lifted);
            lifts.push(quote!(#m: ::diff::__private::Lift::<#scalar>::lift(self.#m)));
            plains.push(quote!(#m: ::diff::__private::Plain::plain(&self.#m)));
            lifts_ref.push(quote!(#m: ::diff::__private::Lift::<#scalar>::lift(&self.#m)));
        } else if floats {
            let ty = &f.ty;
            f.ty = syn::parse2(crate::emit::dual::lift_tokens(&quote!(#ty), &scalar))
                .unwrap_or_else(|_| f.ty.clone());
            lifts.push(quote!(#m: ::diff::__private::Lift::<#scalar>::lift(self.#m)));
            plains.push(quote!(#m: ::diff::__private::Plain::plain(&self.#m)));
            lifts_ref.push(quote!(#m: ::diff::__private::Lift::<#scalar>::lift(::core::clone::Clone::clone(&self.#m))));
        } else {
            lifts.push(quote!(#m: self.#m));
            plains.push(quote!(#m: ::core::clone::Clone::clone(&self.#m)));
            lifts_ref.push(quote!(#m: ::core::clone::Clone::clone(&self.#m)));
        }
        f.attrs.retain(|a| a.path().is_ident(NO_DERIVATIVE));
    }
    let body_of = |fields: &Fields| match fields {
        Fields::Named(n) => quote!(#n),
        Fields::Unnamed(u) => quote!(#u;),
        Fields::Unit => quote!(;),
    };
    // The derive below reads `#[no_derivative]`; the struct itself is declared without.
    let marked = body_of(&twin_fields);
    for f in twin_fields.iter_mut() {
        f.attrs.clear();
    }
    let body = body_of(&twin_fields);
    let derives = if copy {
        quote!(#[derive(Clone, Copy)])
    } else {
        quote!(#[derive(Clone)])
    };
    let twin_input: DeriveInput = match syn::parse2(quote!(#vis struct #dual #marked)) {
        Ok(t) => t,
        Err(_) => return TokenStream::new(),
    };
    let Ok(differentiable) = Derive::new(&twin_input).map(|mut d| {
        d.dual_constructor = true;
        d.emit()
    }) else {
        return TokenStream::new();
    };
    let private = quote!(::diff::__private);
    let decline = format!(
        "diff: second order (hessian!, second_derivative!) is not available here: a `{}` holding dual numbers is passed where a function takes it as plain floats",
        name.unraw()
    );
    quote! {
        #[doc(hidden)]
        #[allow(dead_code, non_camel_case_types, missing_docs, clippy::all)]
        #derives
        #vis struct #dual #body
        // Inside a block: the twin's tangent is reached through its `Differentiable`
        // impl only, and stays out of the crate's namespace and documentation.
        const _: () = {
            #differentiable
            impl #private::Lift<#scalar> for #name {
                type Lifted = #dual;
                fn lift(self) -> #dual {
                    #dual { #(#lifts,)* }
                }
            }
            impl #private::Lift<#scalar> for #dual {
                type Lifted = #dual;
                #[inline(always)]
                fn lift(self) -> #dual {
                    self
                }
            }
            impl #private::Plain for #dual {
                type Out = #name;
                fn plain(&self) -> #name {
                    #name { #(#plains,)* }
                }
            }
            impl #private::LiftTo<#dual> for #name {
                #[inline(always)]
                fn lift_to(self) -> #dual {
                    #private::Lift::<#scalar>::lift(self)
                }
            }
            impl #private::LiftTo<#name> for #dual {
                fn lift_to(self) -> #name {
                    ::core::panic!(#decline)
                }
            }
            impl<'a> #private::Lift<#scalar> for &'a #name {
                type Lifted = #dual;
                fn lift(self) -> #dual {
                    #dual { #(#lifts_ref,)* }
                }
            }
            impl #private::LiftElement<#dual> for #name {
                fn lift_element(&self) -> #dual {
                    #private::Lift::<#scalar>::lift(self)
                }
                fn as_lifted(_: &[Self]) -> ::core::option::Option<&[#dual]> {
                    ::core::option::Option::None
                }
                fn as_lifted_vec(
                    _: &::std::vec::Vec<Self>,
                ) -> ::core::option::Option<&::std::vec::Vec<#dual>> {
                    ::core::option::Option::None
                }
                fn as_lifted_array<const N: usize>(
                    _: &[Self; N],
                ) -> ::core::option::Option<&[#dual; N]> {
                    ::core::option::Option::None
                }
            }
            impl<'a> #private::LiftTo<::std::borrow::Cow<'a, #dual>> for &'a #name {
                fn lift_to(self) -> ::std::borrow::Cow<'a, #dual> {
                    ::std::borrow::Cow::Owned(#private::Lift::<#scalar>::lift(self))
                }
            }
            impl<'a> #private::LiftTo<::std::borrow::Cow<'a, #dual>> for &'a #dual {
                #[inline(always)]
                fn lift_to(self) -> ::std::borrow::Cow<'a, #dual> {
                    ::std::borrow::Cow::Borrowed(self)
                }
            }
            impl<'a> #private::LiftTo<::std::borrow::Cow<'a, #dual>> for #dual {
                #[inline(always)]
                fn lift_to(self) -> ::std::borrow::Cow<'a, #dual> {
                    ::std::borrow::Cow::Owned(self)
                }
            }
        };
    }
}

/// For a struct generic over one type (`Model<T> { w: Vec<T>, b: T }`), which holds
/// dual numbers as it is: the conversion of a reference to one at a float type
/// (`&Model<f64>`) to the same struct of dual numbers, for the dual companion of a
/// function written for `Model<f64>` (`LiftTo<Cow<Model<Dual<f64>>>>`), and of one of
/// dual numbers, borrowed. Each field converts by `Lift`; the bounds are checked where
/// a dual companion uses the conversion, so a struct they do not hold for still derives.
fn generic_lift(input: &DeriveInput) -> TokenStream {
    let Data::Struct(data) = &input.data else {
        return TokenStream::new();
    };
    let params: Vec<&GenericParam> = input.generics.params.iter().collect();
    let [GenericParam::Type(t)] = &params[..] else {
        return TokenStream::new();
    };
    if input.generics.where_clause.is_some() || !crate::twin::float_like_param(t) {
        return TokenStream::new();
    }
    let (name, param) = (&input.ident, &t.ident);
    let private = quote!(::diff::__private);
    let s = Ident::new("__DiffScalar", Span::call_site());
    let at = |ty: &Type, with: TokenStream| -> TokenStream {
        let mut ty = ty.clone();
        struct Replace<'p>(&'p Ident, TokenStream);
        impl VisitMut for Replace<'_> {
            fn visit_type_mut(&mut self, t: &mut Type) {
                if let Type::Path(p) = t {
                    if p.qself.is_none() && p.path.is_ident(self.0) {
                        if let Ok(with) = syn::parse2(self.1.clone()) {
                            *t = with;
                        }
                        return;
                    }
                }
                syn::visit_mut::visit_type_mut(self, t);
            }
        }
        Replace(param, with).visit_type_mut(&mut ty);
        quote!(#ty)
    };
    let mut bounds = Vec::new();
    let mut fields = Vec::new();
    for (i, f) in data.fields.iter().enumerate() {
        let m = match &f.ident {
            Some(id) => Member::Named(id.clone()),
            None => Member::Unnamed(Index::from(i)),
        };
        let plain = at(&f.ty, quote!(#s));
        let dual = at(&f.ty, quote!(#private::Dual<#s>));
        bounds.push(quote!(#plain: #private::Lift<#s, Lifted = #dual> + ::core::clone::Clone));
        fields.push(quote!(#m: #private::Lift::<#s>::lift(::core::clone::Clone::clone(&self.#m))));
    }
    // `Name { 0: .., 1: .. }` for a tuple struct too.
    let body = quote!(#name { #(#fields,)* });
    // The parameter's own bounds (`T: Float`), which both instances must meet.
    let own = &t.bounds;
    let own_bounds = if own.is_empty() {
        Vec::new()
    } else {
        vec![quote!(#s: #own), quote!(#private::Dual<#s>: #own)]
    };
    bounds.extend(own_bounds.iter().cloned());
    quote! {
        const _: () = {
            impl<'a, #s> #private::LiftTo<::std::borrow::Cow<'a, #name<#private::Dual<#s>>>>
                for &'a #name<#s>
            where
                #name<#private::Dual<#s>>: ::core::clone::Clone,
                #(#bounds,)*
            {
                fn lift_to(self) -> ::std::borrow::Cow<'a, #name<#private::Dual<#s>>> {
                    ::std::borrow::Cow::Owned(#body)
                }
            }
            impl<#s> #private::LiftGeneric for #name<#s>
            where
                #(#bounds,)*
            {
                type Lifted = #name<#private::Dual<#s>>;
                fn lift_generic(&self) -> #name<#private::Dual<#s>> {
                    #body
                }
            }
            impl<'a, #s> #private::LiftTo<::std::borrow::Cow<'a, #name<#private::Dual<#s>>>>
                for &'a #name<#private::Dual<#s>>
            where
                #name<#private::Dual<#s>>: ::core::clone::Clone,
                #(#own_bounds,)*
            {
                #[inline(always)]
                fn lift_to(self) -> ::std::borrow::Cow<'a, #name<#private::Dual<#s>>> {
                    ::std::borrow::Cow::Borrowed(self)
                }
            }
        };
    }
}

/// How the fields of the struct (and so of its tangent) are written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Named,
    Tuple,
    Unit,
}

/// A differentiable field (one not marked `#[no_derivative]`).
struct Field {
    /// The field on the original struct (`self.w`, `self.2`).
    src: Member,
    /// The same field on the tangent; tuple indices shift when fields are left out.
    dst: Member,
    /// The field's type, with `Self` replaced by the struct's type.
    ty: Type,
    /// Whether `ty` mentions a generic parameter of the struct (then impls need bounds on it).
    generic: bool,
}

/// A `#[no_derivative]` field: its member and type on the struct.
type Constant = (Member, Type);

/// Everything the emitters need.
struct Derive<'a> {
    input: &'a DeriveInput,
    shape: Shape,
    fields: Vec<Field>,
    /// The `#[no_derivative]` fields.
    constants: Vec<Constant>,
    /// `<Name>Tangent`, spanned at the struct's name.
    tangent: Ident,
    /// The tangent's generics: the kept parameters, the original where-predicates that only
    /// mention kept parameters, and `F: ::diff::Differentiable` for each generic field type `F`.
    tangent_generics: Generics,
    /// For a twin (`twin.rs`) of a tuple struct: its constructor's reverse mode is also
    /// `__vjp_dual`, where a dual companion looks for the constructor `__DiffDualP(..)`.
    dual_constructor: bool,
}

impl<'a> Derive<'a> {
    fn new(input: &'a DeriveInput) -> syn::Result<Self> {
        let data = match &input.data {
            Data::Struct(data) => data,
            Data::Enum(data) => return Err(not_a_struct(data.enum_token, &input.ident, "an enum")),
            Data::Union(data) => {
                return Err(not_a_struct(data.union_token, &input.ident, "a union"))
            }
        };
        if let Some(attr) = input
            .attrs
            .iter()
            .find(|a| a.path().is_ident(NO_DERIVATIVE))
        {
            let msg = "`#[no_derivative]` goes on fields of the struct, not on the struct itself";
            return Err(syn::Error::new_spanned(attr, msg));
        }
        let shape = match &data.fields {
            Fields::Named(_) => Shape::Named,
            Fields::Unnamed(_) => Shape::Tuple,
            Fields::Unit => Shape::Unit,
        };
        let (fields, constants) = collect_fields(input, &data.fields)?;
        let tangent_generics = tangent_generics(&input.generics, &fields);
        let tangent = format_ident!("{}Tangent", input.ident, span = input.ident.span());
        Ok(Derive {
            input,
            shape,
            fields,
            constants,
            tangent,
            tangent_generics,
            dual_constructor: false,
        })
    }

    fn emit(&self) -> TokenStream {
        let items = [
            self.emit_struct(),
            self.emit_clone(),
            self.emit_debug(),
            self.emit_partial_eq(),
            self.emit_vector_space(),
            self.emit_inner_product(),
            self.emit_differentiable(),
            match self.shape {
                Shape::Named => self.emit_constants(),
                Shape::Tuple => {
                    let (fields, constructor) = (self.emit_tuple_fields(), self.emit_constructor());
                    quote!(#fields #constructor)
                }
                Shape::Unit => TokenStream::new(),
            },
        ];
        quote!(#(#items)*)
    }

    /// `pub struct ModelTangent { pub w: <Vec<f64> as ::diff::Differentiable>::TangentVector, .. }`
    fn emit_struct(&self) -> TokenStream {
        let (vis, name, tangent) = (&self.input.vis, self.input.ident.unraw(), &self.tangent);
        let doc = format!(
            "The tangent vector of [`{name}`], generated by `#[derive(Differentiable)]`.\n\n\
             It has one public field for each field of `{name}` not marked `#[no_derivative]`, \
             holding that field's tangent, so it can be built with a struct literal."
        );
        let generics = &self.tangent_generics;
        let where_clause = &generics.where_clause;
        let fields = self.fields.iter().map(|field| {
            let ty = tangent_ty(field);
            let doc = format!("The tangent of `{name}.{}`.", member_name(&field.src));
            match &field.dst {
                Member::Named(ident) => quote!(#[doc = #doc] pub #ident: #ty),
                Member::Unnamed(_) => quote!(#[doc = #doc] pub #ty),
            }
        });
        let body = match self.shape {
            Shape::Named => quote!(#where_clause { #(#fields,)* }),
            Shape::Tuple => quote!(( #(#fields,)* ) #where_clause;),
            Shape::Unit => quote!(#where_clause;),
        };
        quote!(#[doc = #doc] #vis struct #tangent #generics #body)
    }

    fn emit_clone(&self) -> TokenStream {
        let body = self.construct(self.fields.iter().map(|field| {
            let m = &field.dst;
            quote!(::core::clone::Clone::clone(&self.#m))
        }));
        let items = quote! {
            #[inline]
            fn clone(&self) -> Self { #body }
        };
        self.tangent_impl(quote!(::core::clone::Clone), None, items)
    }

    fn emit_debug(&self) -> TokenStream {
        let name = self.tangent.to_string();
        let f = local("f");
        let members = self.fields.iter().map(|field| &field.dst);
        let body = match self.shape {
            Shape::Named => {
                let names = self.fields.iter().map(|field| member_name(&field.dst));
                quote!(#f.debug_struct(#name) #(.field(#names, &self.#members))* .finish())
            }
            Shape::Tuple => quote!(#f.debug_tuple(#name) #(.field(&self.#members))* .finish()),
            Shape::Unit => quote!(#f.write_str(#name)),
        };
        let items = quote! {
            fn fmt(&self, #f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { #body }
        };
        self.tangent_impl(
            quote!(::core::fmt::Debug),
            Some(quote!(::core::fmt::Debug)),
            items,
        )
    }

    fn emit_partial_eq(&self) -> TokenStream {
        let other = local("other");
        let body = self.fold_fields(
            quote!(true),
            quote!(&&),
            |m| quote!(::core::cmp::PartialEq::eq(&self.#m, &#other.#m)),
        );
        let other = self.binding(&other);
        let items = quote! {
            #[inline]
            fn eq(&self, #other: &Self) -> bool { #body }
        };
        let eq = quote!(::core::cmp::PartialEq);
        self.tangent_impl(eq.clone(), Some(eq), items)
    }

    fn emit_vector_space(&self) -> TokenStream {
        let (other, by) = (local("other"), local("by"));
        let zero = self.construct(self.fields.iter().map(|field| {
            let ty = tangent_ty(field);
            quote!(<#ty as ::diff::VectorSpace>::zero_vector())
        }));
        let add = self.construct(self.fields.iter().map(|field| {
            let m = &field.dst;
            quote!(::diff::VectorSpace::add(self.#m, #other.#m))
        }));
        let scale = self.construct(self.fields.iter().map(|field| {
            let m = &field.dst;
            quote!(::diff::VectorSpace::scale(self.#m, #by))
        }));
        let (other, by) = (self.binding(&other), self.binding(&by));
        let items = quote! {
            #[inline]
            fn zero_vector() -> Self { #zero }
            #[inline]
            fn add(self, #other: Self) -> Self { #add }
            #[inline]
            fn scale(self, #by: f64) -> Self { #scale }
        };
        let vector_space = self.tangent_impl(quote!(::diff::VectorSpace), None, items);
        // `ModelTangent::zero()` without the trait in scope, and without the ambiguity
        // with `num_traits::Zero::zero` that a trait method of that name would bring.
        let (impl_generics, ty_generics, where_clause) = self.tangent_generics.split_for_impl();
        let tangent = &self.tangent;
        let operators = self.emit_operators();
        quote! {
            #vector_space
            #operators
            #[automatically_derived]
            impl #impl_generics #tangent #ty_generics #where_clause {
                /// The zero tangent: every field's zero.
                #[inline]
                #[allow(dead_code)]
                pub fn zero() -> Self
                where
                    Self: ::diff::VectorSpace,
                {
                    <Self as ::diff::VectorSpace>::zero_vector()
                }
            }
        }
    }

    /// The arithmetic of tangent vectors as operators (`a + b`, `a - b`, `-a`, `a * 2.0`,
    /// `a += b`, `a -= b`), through `VectorSpace`.
    fn emit_operators(&self) -> TokenStream {
        let mut generics = self.tangent_generics.clone();
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(Self: ::diff::VectorSpace));
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        let tangent = &self.tangent;
        let vs = quote!(::diff::VectorSpace);
        quote! {
            #[automatically_derived]
            impl #impl_generics ::core::ops::Add for #tangent #ty_generics #where_clause {
                type Output = Self;
                #[inline]
                fn add(self, other: Self) -> Self { #vs::add(self, other) }
            }
            #[automatically_derived]
            impl #impl_generics ::core::ops::Sub for #tangent #ty_generics #where_clause {
                type Output = Self;
                #[inline]
                fn sub(self, other: Self) -> Self { #vs::add(self, #vs::scale(other, -1.0)) }
            }
            #[automatically_derived]
            impl #impl_generics ::core::ops::Neg for #tangent #ty_generics #where_clause {
                type Output = Self;
                #[inline]
                fn neg(self) -> Self { #vs::scale(self, -1.0) }
            }
            #[automatically_derived]
            impl #impl_generics ::core::ops::Mul<f64> for #tangent #ty_generics #where_clause {
                type Output = Self;
                #[inline]
                fn mul(self, by: f64) -> Self { #vs::scale(self, by) }
            }
            #[automatically_derived]
            impl #impl_generics ::core::ops::AddAssign for #tangent #ty_generics #where_clause {
                #[inline]
                fn add_assign(&mut self, other: Self) {
                    let this = ::core::mem::replace(self, <Self as #vs>::zero_vector());
                    *self = #vs::add(this, other);
                }
            }
            #[automatically_derived]
            impl #impl_generics ::core::ops::SubAssign for #tangent #ty_generics #where_clause {
                #[inline]
                fn sub_assign(&mut self, other: Self) {
                    let this = ::core::mem::replace(self, <Self as #vs>::zero_vector());
                    *self = #vs::add(this, #vs::scale(other, -1.0));
                }
            }
        }
    }

    fn emit_inner_product(&self) -> TokenStream {
        let other = local("other");
        let body = self.fold_fields(
            quote!(0.0),
            quote!(+),
            |m| quote!(::diff::InnerProduct::dot(&self.#m, &#other.#m)),
        );
        let other = self.binding(&other);
        let items = quote! {
            #[inline]
            fn dot(&self, #other: &Self) -> f64 { #body }
        };
        let inner = quote!(::diff::InnerProduct);
        self.tangent_impl(inner.clone(), Some(inner), items)
    }

    /// `impl ::diff::Differentiable for Model { type TangentVector = ModelTangent; .. }`
    fn emit_differentiable(&self) -> TokenStream {
        let (ident, tangent) = (&self.input.ident, &self.tangent);
        let mut generics = self.input.generics.clone();
        let bounds = differentiable_bounds(&self.fields);
        generics.make_where_clause().predicates.extend(bounds);
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        let (_, tangent_ty_generics, _) = self.tangent_generics.split_for_impl();
        let zero = self.construct(self.fields.iter().map(|field| {
            let m = &field.src;
            quote!(::diff::Differentiable::zero_tangent(&self.#m))
        }));
        let direction = local("direction");
        let steps = self.fields.iter().map(|Field { src, dst, .. }| {
            quote!(::diff::Differentiable::move_by(&mut self.#src, &#direction.#dst);)
        });
        let direction = self.binding(&direction);
        quote! {
            #[automatically_derived]
            impl #impl_generics ::diff::Differentiable for #ident #ty_generics #where_clause {
                type TangentVector = #tangent #tangent_ty_generics;
                #[inline]
                fn zero_tangent(&self) -> Self::TangentVector { #zero }
                #[inline]
                fn move_by(&mut self, #direction: &Self::TangentVector) { #(#steps)* }
            }
        }
    }

    /// For a tuple struct, the derivatives of its constructor `P(a, b)` as associated
    /// functions `P::__vjp` / `P::__jvp`, where generated code looks for a called
    /// function's (a call of `P` reads like one): the pullback hands each field's
    /// adjoint to its argument (`()` for a `#[no_derivative]` field), the differential
    /// gathers the arguments' tangents.
    fn emit_constructor(&self) -> TokenStream {
        let (vis, ident, tangent) = (&self.input.vis, &self.input.ident, &self.tangent);
        let mut generics = self.input.generics.clone();
        let bounds = differentiable_bounds(&self.fields);
        generics.make_where_clause().predicates.extend(bounds);
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        let (_, tangent_ty_generics, _) = self.tangent_generics.split_for_impl();
        let (t, count) = (local("t"), self.fields.len() + self.constants.len());
        let (mut params, mut args, mut slots, mut pulls, mut dpats) =
            (vec![], vec![], vec![], vec![], vec![]);
        for i in 0..count {
            let arg = format_ident!("__diff_{}", i);
            let at = |m: &Member| matches!(m, Member::Unnamed(n) if n.index as usize == i);
            if let Some(field) = self.fields.iter().find(|f| at(&f.src)) {
                let (ty, tt, dst) = (&field.ty, tangent_ty(field), &field.dst);
                params.push(quote!(#arg: #ty));
                slots.push(quote!(::core::option::Option<#tt>));
                pulls.push(quote!(::core::option::Option::Some(#t.#dst)));
                dpats.push(format_ident!("__diff_d{}", i).to_token_stream());
            } else if let Some((_, ty)) = self.constants.iter().find(|(m, _)| at(m)) {
                // A float given for a `#[no_derivative]` field gets a zero adjoint; a value
                // of a type the library does not know carries none (`()`).
                params.push(quote!(#arg: #ty));
                if self.known_constant(ty).is_some() {
                    slots.push(quote!(::core::option::Option<<#ty as ::diff::Differentiable>::TangentVector>));
                    pulls.push(quote!(::core::option::Option::None));
                } else {
                    slots.push(quote!(()));
                    pulls.push(quote!(()));
                }
                dpats.push(quote!(_));
            }
            args.push(arg);
        }
        let tangent_value = self.construct(self.fields.iter().map(|field| {
            let Member::Unnamed(n) = &field.src else {
                return TokenStream::new();
            };
            let d = format_ident!("__diff_d{}", n.index);
            quote!(#d.unwrap_or_else(::diff::VectorSpace::zero_vector))
        }));
        let t_pat = if self.fields.is_empty() {
            quote!(_)
        } else {
            quote!(#t)
        };
        let dual = self.dual_constructor.then(|| {
            quote! {
                #[doc(hidden)]
                #[inline]
                #vis fn __vjp_dual(#(#params),*) -> (
                    Self,
                    impl ::core::ops::FnOnce(#tangent #tangent_ty_generics) -> (#(#slots,)*),
                ) {
                    Self::__vjp(#(#args),*)
                }
            }
        });
        quote! {
            #[automatically_derived]
            #[doc(hidden)]
            impl #impl_generics #ident #ty_generics #where_clause {
                #[doc(hidden)]
                #[inline]
                #vis fn __vjp(#(#params),*) -> (
                    Self,
                    impl ::core::ops::FnOnce(#tangent #tangent_ty_generics) -> (#(#slots,)*),
                ) {
                    (#ident(#(#args),*), move |#t_pat: #tangent #tangent_ty_generics| (#(#pulls,)*))
                }
                #dual
                #[doc(hidden)]
                #[inline]
                #vis fn __jvp(#(#params),*) -> (
                    Self,
                    impl ::core::ops::FnOnce((#(#slots,)*)) -> ::core::option::Option<#tangent #tangent_ty_generics>,
                ) {
                    (#ident(#(#args),*), move |(#(#dpats,)*)| ::core::option::Option::Some(#tangent_value))
                }
            }
        }
    }

    /// For the `#[no_derivative]` fields, places on the tangent that read as zero and drop
    /// what is written (`ConstantField`), reached through `Deref`, so that
    /// code generated for `model.name` type-checks while the tangent's public fields stay
    /// exactly the differentiable ones:
    /// `struct __DiffConstantsOfModel { pub name: ConstantField<bool> }`, whose `deref` is a
    /// zero-sized place.
    fn emit_constants(&self) -> TokenStream {
        if self.constants.is_empty() {
            return TokenStream::new();
        }
        let (vis, tangent) = (&self.input.vis, &self.tangent);
        let holder = format_ident!("__DiffConstantsOf{}", self.input.ident.unraw());
        let fields = self.constants.iter().map(|(member, ty)| {
            let t = self.constant_tangent(ty);
            quote!(pub #member: ::diff::__private::ConstantField<#t>)
        });
        let (impl_generics, ty_generics, where_clause) = self.tangent_generics.split_for_impl();
        quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #[derive(::core::default::Default)]
            #vis struct #holder { #(#fields,)* }
            #[automatically_derived]
            #[doc(hidden)]
            impl #impl_generics ::core::ops::Deref for #tangent #ty_generics #where_clause {
                type Target = #holder;
                #[inline(always)]
                fn deref(&self) -> &#holder { ::diff::__private::zero_sized_place() }
            }
            #[automatically_derived]
            #[doc(hidden)]
            impl #impl_generics ::core::ops::DerefMut for #tangent #ty_generics #where_clause {
                #[inline(always)]
                fn deref_mut(&mut self) -> &mut #holder { ::diff::__private::zero_sized_place() }
            }
        }
    }

    /// `ty` when the library knows it as Differentiable and it mentions no parameter (a
    /// read of a `#[no_derivative]` field of it is then typed like `ty`'s tangent, so that
    /// `self.mass * x` type-checks), `None` otherwise (read like a discrete value).
    fn known_constant(&self, ty: &Type) -> Option<Type> {
        let params = param_names(&self.input.generics);
        (known_differentiable(ty) && mentions(&params, |v| v.visit_type(ty)).is_empty())
            .then(|| ty.clone())
    }

    /// The type whose tangent a read of a `#[no_derivative]` field of type `ty` has: `ty`
    /// if known ([`Self::known_constant`]), a discrete value's (`bool`) otherwise.
    fn constant_tangent(&self, ty: &Type) -> Type {
        self.known_constant(ty)
            .unwrap_or_else(|| syn::parse_quote!(bool))
    }

    /// For a tuple struct, `TupleField<N>` on the tangent for each position `N` of the
    /// struct, through which generated code reaches `s.N`'s tangent: the tangent's own field
    /// (the positions shift past `#[no_derivative]` fields), or nothing (zero) for a
    /// `#[no_derivative]` one.
    fn emit_tuple_fields(&self) -> TokenStream {
        let field = |n: &Member, ty: TokenStream, body: TokenStream| {
            let Member::Unnamed(n) = n else {
                return TokenStream::new();
            };
            let n = n.index as usize;
            self.tangent_impl(
                quote!(::diff::__private::TupleField<#n>),
                None,
                quote! { type Tangent = #ty; #body },
            )
        };
        let differentiable = self.fields.iter().map(|f| {
            let dst = &f.dst;
            field(
                &f.src,
                tangent_ty(f),
                quote!(::diff::__tuple_field_body!(#dst);),
            )
        });
        let constants = self.constants.iter().map(|(member, ty)| {
            let ty = self.constant_tangent(ty);
            let t = quote!(<#ty as ::diff::Differentiable>::TangentVector);
            let none = quote!(::core::option::Option::None);
            let body = quote! {
                #[inline(always)]
                fn __diff_field(&self) -> ::core::option::Option<#t> { #none }
                #[inline(always)]
                fn __diff_accumulate(&mut self, _: #t) {}
                #[inline(always)]
                fn __diff_set(&mut self, _: ::core::option::Option<#t>) {}
                #[inline(always)]
                fn __diff_take(&mut self) -> ::core::option::Option<#t> { #none }
            };
            field(member, t.clone(), body)
        });
        differentiable.chain(constants).collect()
    }

    /// `impl<..> trait_ for ModelTangent<..>`, with `<F as Differentiable>::TangentVector: bound`
    /// added for every generic field type `F` when `bound` is given.
    fn tangent_impl(
        &self,
        trait_: TokenStream,
        bound: Option<TokenStream>,
        items: TokenStream,
    ) -> TokenStream {
        let mut generics = self.tangent_generics.clone();
        if let Some(bound) = bound {
            let extra = self
                .fields
                .iter()
                .filter(|field| field.generic)
                .map(|field| {
                    let ty = tangent_ty(field);
                    syn::parse_quote!(#ty: #bound)
                });
            let predicates: Vec<WherePredicate> = dedup(extra);
            generics.make_where_clause().predicates.extend(predicates);
        }
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        let tangent = &self.tangent;
        quote! {
            #[automatically_derived]
            impl #impl_generics #trait_ for #tangent #ty_generics #where_clause { #items }
        }
    }

    /// A value of the tangent type built from one expression per field, in field order.
    fn construct(&self, exprs: impl Iterator<Item = TokenStream>) -> TokenStream {
        let tangent = &self.tangent;
        match self.shape {
            Shape::Named => {
                let names = self.fields.iter().map(|field| &field.dst);
                quote!(#tangent { #(#names: #exprs),* })
            }
            Shape::Tuple => quote!(#tangent( #(#exprs),* )),
            Shape::Unit => quote!(#tangent),
        }
    }

    /// `f(m0) op f(m1) op ..` over the tangent's fields, or `empty` when it has none.
    fn fold_fields(
        &self,
        empty: TokenStream,
        op: TokenStream,
        f: impl Fn(&Member) -> TokenStream,
    ) -> TokenStream {
        if self.fields.is_empty() {
            return empty;
        }
        let mut terms = self.fields.iter().map(|field| f(&field.dst));
        let first = terms.next();
        let rest = terms.map(|term| quote!(#op #term));
        quote!(#first #(#rest)*)
    }

    /// A parameter pattern: the binding, or `_` when there are no fields to use it on.
    fn binding(&self, ident: &Ident) -> TokenStream {
        if self.fields.is_empty() {
            quote!(_)
        } else {
            ident.to_token_stream()
        }
    }
}

/// The error for enums and unions, spanned over `enum Name` / `union Name`.
fn not_a_struct(keyword: impl ToTokens, ident: &Ident, what: &str) -> syn::Error {
    let msg = format!(
        "`#[derive(Differentiable)]` supports structs only, and `{}` is {what}; \
         implement `Differentiable` for it by hand",
        ident.unraw()
    );
    syn::Error::new_spanned(quote!(#keyword #ident), msg)
}

/// The fields not marked `#[no_derivative]`, with their members on the struct and the
/// tangent, and the ones marked, with their members and types.
///
/// The differentiable fields and the `#[no_derivative]` ones (their members and types).
fn collect_fields(
    input: &DeriveInput,
    fields: &Fields,
) -> syn::Result<(Vec<Field>, Vec<Constant>)> {
    let params = param_names(&input.generics);
    let (ident, (_, ty_generics, _)) = (&input.ident, input.generics.split_for_impl());
    let mut replace_self = ReplaceSelf(syn::parse_quote!(#ident #ty_generics));
    let mut out = Vec::new();
    let mut constants: Vec<Constant> = Vec::new();
    for (index, field) in fields.iter().enumerate() {
        if has_no_derivative(&field.attrs)? {
            let member = match &field.ident {
                Some(name) => Member::Named(name.clone()),
                None => Member::Unnamed(Index {
                    index: index as u32,
                    span: field.ty.span(),
                }),
            };
            constants.push((member, field.ty.clone()));
            continue;
        }
        let span = field.ty.span();
        let (src, dst) = match &field.ident {
            Some(name) => (Member::Named(name.clone()), Member::Named(name.clone())),
            None => (
                Member::Unnamed(Index {
                    index: index as u32,
                    span,
                }),
                Member::Unnamed(Index {
                    index: out.len() as u32,
                    span,
                }),
            ),
        };
        let mut ty = field.ty.clone();
        replace_self.visit_type_mut(&mut ty);
        let generic = !mentions(&params, |v| v.visit_type(&ty)).is_empty();
        out.push(Field {
            src,
            dst,
            ty,
            generic,
        });
    }
    Ok((out, constants))
}

/// Whether the library implements `Differentiable` for the type, seen from its syntax: a
/// float, an integer or `bool`, and arrays, `Vec`s and tuples of those.
fn known_differentiable(ty: &Type) -> bool {
    const SCALARS: &[&str] = &[
        "f32", "f64", "bool", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32",
        "u64", "u128", "usize",
    ];
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            if p.path.segments.len() == 1 && SCALARS.contains(&last.ident.to_string().as_str()) {
                return matches!(last.arguments, syn::PathArguments::None);
            }
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args)
                    if last.ident == "Vec" || last.ident == "Option" =>
                {
                    matches!(args.args.first(), Some(syn::GenericArgument::Type(t)) if known_differentiable(t))
                }
                _ => false,
            }
        }
        Type::Array(a) => known_differentiable(&a.elem),
        Type::Tuple(t) => t.elems.iter().all(known_differentiable),
        Type::Paren(p) => known_differentiable(&p.elem),
        Type::Group(g) => known_differentiable(&g.elem),
        _ => false,
    }
}

/// Whether the attributes hold `#[no_derivative]`; it takes no arguments and appears once.
fn has_no_derivative(attrs: &[Attribute]) -> syn::Result<bool> {
    let mut found = false;
    for attr in attrs
        .iter()
        .filter(|attr| attr.path().is_ident(NO_DERIVATIVE))
    {
        if attr.meta.require_path_only().is_err() {
            let msg = "`#[no_derivative]` takes no arguments: write `#[no_derivative]`";
            return Err(syn::Error::new_spanned(attr, msg));
        }
        if found {
            return Err(syn::Error::new_spanned(
                attr,
                "duplicate `#[no_derivative]`",
            ));
        }
        found = true;
    }
    Ok(found)
}

/// The tangent's generics (see [`Derive::tangent_generics`]).
fn tangent_generics(generics: &Generics, fields: &[Field]) -> Generics {
    let params = param_names(generics);
    let predicates: Vec<&WherePredicate> = generics
        .where_clause
        .iter()
        .flat_map(|w| &w.predicates)
        .collect();
    let mut kept = BTreeSet::new();
    for field in fields {
        kept.extend(mentions(&params, |v| v.visit_type(&field.ty)));
    }
    // A kept parameter keeps what its bounds and its where-predicates mention.
    loop {
        let before = kept.len();
        for param in &generics.params {
            if kept.contains(&param_name(param)) {
                kept.extend(mentions(&params, |v| v.visit_generic_param(param)));
            }
        }
        for predicate in &predicates {
            let mentioned = mentions(&params, |v| v.visit_where_predicate(predicate));
            if !mentioned.is_disjoint(&kept) {
                kept.extend(mentioned);
            }
        }
        if kept.len() == before {
            break;
        }
    }
    let mut out = Generics {
        params: generics
            .params
            .iter()
            .filter(|p| kept.contains(&param_name(p)))
            .cloned()
            .collect(),
        ..Generics::default()
    };
    let kept_predicates = predicates
        .into_iter()
        .filter(|predicate| {
            mentions(&params, |v| v.visit_where_predicate(predicate)).is_subset(&kept)
        })
        .cloned();
    let where_clause = out.make_where_clause();
    where_clause.predicates.extend(kept_predicates);
    where_clause
        .predicates
        .extend(differentiable_bounds(fields));
    out
}

/// `F: ::diff::Differentiable` for each generic differentiable field type `F`.
fn differentiable_bounds(fields: &[Field]) -> Vec<WherePredicate> {
    dedup(fields.iter().filter(|field| field.generic).map(|field| {
        let ty = &field.ty;
        syn::parse_quote_spanned!(ty.span()=> #ty: ::diff::Differentiable)
    }))
}

/// `<F as ::diff::Differentiable>::TangentVector`, spanned at the field's type so that a
/// field whose type is not `Differentiable` is reported there.
fn tangent_ty(field: &Field) -> TokenStream {
    let ty = &field.ty;
    quote_spanned!(ty.span()=> <#ty as ::diff::Differentiable>::TangentVector)
}

/// Drops repeated predicates (two fields of the same type), keeping the first.
fn dedup(predicates: impl Iterator<Item = WherePredicate>) -> Vec<WherePredicate> {
    let mut seen = BTreeSet::new();
    predicates
        .filter(|p| seen.insert(p.to_token_stream().to_string()))
        .collect()
}

/// A local binding of generated code, hygienic so that it cannot clash with user names.
fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// `w` for a named member, `2` for a tuple index.
fn member_name(member: &Member) -> String {
    match member {
        Member::Named(ident) => ident.unraw().to_string(),
        Member::Unnamed(index) => index.index.to_string(),
    }
}

/// The name of a generic parameter as [`Mentions`] records it (`T`, `N`, `'a`).
fn param_name(param: &GenericParam) -> String {
    match param {
        GenericParam::Type(param) => param.ident.to_string(),
        GenericParam::Const(param) => param.ident.to_string(),
        GenericParam::Lifetime(param) => param.lifetime.to_string(),
    }
}

fn param_names(generics: &Generics) -> BTreeSet<String> {
    generics.params.iter().map(param_name).collect()
}

/// The generic parameters (out of `params`) that the syntax visited by `visit` mentions.
fn mentions(params: &BTreeSet<String>, visit: impl FnOnce(&mut Mentions)) -> BTreeSet<String> {
    let mut visitor = Mentions {
        params,
        found: BTreeSet::new(),
    };
    visit(&mut visitor);
    visitor.found
}

/// Collects mentions of generic parameters: paths starting with a type or const parameter's
/// name (`T`, `T::Assoc`, `N` in `[f64; N]`) and lifetimes.
struct Mentions<'p> {
    params: &'p BTreeSet<String>,
    found: BTreeSet<String>,
}

impl Mentions<'_> {
    fn note(&mut self, name: String) {
        if self.params.contains(&name) {
            self.found.insert(name);
        }
    }
}

impl<'ast> Visit<'ast> for Mentions<'_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            if let Some(first) = path.segments.first() {
                self.note(first.ident.to_string());
            }
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_lifetime(&mut self, lifetime: &'ast Lifetime) {
        self.note(lifetime.to_string());
    }
}

/// Replaces the type `Self` by the struct's type: in the tangent, `Self` would mean the tangent.
struct ReplaceSelf(Type);

impl VisitMut for ReplaceSelf {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(path) = ty {
            if path.qself.is_none() && path.path.is_ident("Self") {
                *ty = self.0.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_str(src: &str) -> String {
        expand(syn::parse_str(src).expect("test input parses")).to_string()
    }

    fn tangent_item(src: &str) -> syn::ItemStruct {
        let file: syn::File = syn::parse2(expand(syn::parse_str(src).unwrap())).unwrap();
        file.items
            .into_iter()
            .find_map(|item| match item {
                syn::Item::Struct(item) => Some(item),
                _ => None,
            })
            .expect("a tangent struct")
    }

    #[test]
    fn model_tangent_fields_and_visibility() {
        let item =
            tangent_item("pub struct Model { w: Vec<f64>, b: f64, #[no_derivative] name: String }");
        assert_eq!(item.ident, "ModelTangent");
        assert!(matches!(item.vis, syn::Visibility::Public(_)));
        let names: Vec<String> = item
            .fields
            .iter()
            .map(|f| f.ident.as_ref().unwrap().to_string())
            .collect();
        assert_eq!(names, ["w", "b"]);
        assert!(item
            .fields
            .iter()
            .all(|f| matches!(f.vis, syn::Visibility::Public(_))));
        let ty = item
            .fields
            .iter()
            .next()
            .unwrap()
            .ty
            .to_token_stream()
            .to_string();
        assert_eq!(
            ty,
            "< Vec < f64 > as :: diff :: Differentiable > :: TangentVector"
        );
    }

    #[test]
    fn output_parses_and_names_absolute_paths() {
        let out = expand_str("struct S(f64, #[no_derivative] u8, [f64; 3]);");
        let file: syn::File = syn::parse_str(&out).unwrap();
        // The tangent and its impls (6 of them operators), `TupleField` for each of the 3
        // positions, and the constructor's derivatives; then the dual twin, the same for
        // it, and its conversions.
        assert_eq!(file.items.len(), 12 + 6 + 2);
        assert!(out.contains("struct __DiffDualS (:: diff :: __private :: Dual < f64 > , u8 , [:: diff :: __private :: Dual < f64 > ; 3]) ;"), "{out}");
        assert!(out.contains("TupleField < 2usize >"), "{out}");
        assert!(
            out.contains(":: diff :: VectorSpace :: add (self . 1 , other . 1)"),
            "{out}"
        );
        assert!(
            out.contains(":: diff :: Differentiable :: move_by (& mut self . 2 , & direction . 1)")
        );
        assert!(out.contains("type TangentVector = STangent ;"));
    }

    #[test]
    fn generic_parameters_unused_by_the_tangent_are_dropped() {
        let src = "struct P<'a, T: Copy, S, const N: usize> where S: Clone, T: Default {
            x: T, a: [f64; N], #[no_derivative] s: &'a S }";
        let item = tangent_item(src);
        let generics = item.generics.to_token_stream().to_string();
        assert_eq!(generics, "< T : Copy , const N : usize >");
        let preds = item
            .generics
            .where_clause
            .unwrap()
            .to_token_stream()
            .to_string();
        assert!(preds.contains("T : Default"), "{preds}");
        assert!(preds.contains("T : :: diff :: Differentiable"), "{preds}");
        assert!(
            preds.contains("[f64 ; N] : :: diff :: Differentiable"),
            "{preds}"
        );
        assert!(!preds.contains("S : Clone"), "{preds}");
    }

    #[test]
    fn unit_and_empty_structs() {
        let out = expand_str("struct U;");
        assert!(out.contains("struct UTangent ;"), "{out}");
        assert!(out.contains("fn add (self , _ : Self)"), "{out}");
        let out = expand_str("struct E { #[no_derivative] n: usize }");
        assert!(out.contains("struct ETangent { }"), "{out}");
        assert!(
            out.contains("fn dot (& self , _ : & Self) -> f64 { 0.0 }"),
            "{out}"
        );
    }

    #[test]
    fn self_in_field_types_means_the_struct() {
        let item = tangent_item("struct Tree<T> { v: T, kids: Vec<Self> }");
        let ty = item
            .fields
            .iter()
            .nth(1)
            .unwrap()
            .ty
            .to_token_stream()
            .to_string();
        assert_eq!(
            ty,
            "< Vec < Tree < T > > as :: diff :: Differentiable > :: TangentVector"
        );
    }

    #[test]
    fn enums_unions_and_bad_attributes_are_errors() {
        let out = expand_str("enum E { A, B }");
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("supports structs only"), "{out}");
        assert!(expand_str("union U { a: f64 }").contains("is a union"));
        let out = expand_str("struct S { #[no_derivative(x)] a: f64 }");
        assert!(out.contains("takes no arguments"), "{out}");
        let out = expand_str("#[no_derivative] struct S { a: f64 }");
        assert!(out.contains("goes on fields"), "{out}");
    }
}
