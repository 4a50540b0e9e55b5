//! Arithmetic operators a struct implements (`impl Add for V`, `impl Mul<f64> for V`,
//! `impl Mul<V> for f64`): their derivatives are inherent functions of the struct, which
//! the lowering calls where an operand is known to be one (`lower/expr.rs`,
//! `lower_binary`).
//!
//! A type may implement one operator several times with different right operands
//! (`impl Mul for V` and `impl Mul<f64> for V`), so a binary operator's implementation
//! is copied as an inherent function named after its right operand
//! ([`by_rhs`]: `V::__mul_by_v`, `V::__mul_by_f64`), whose companions
//! (`__vjp___mul_by_f64`, ...) cannot collide; `impl Mul<V> for f64` becomes
//! `V::__rhs_mul(lhs, v)`. In the copies `Self::Output` is the `impl`'s `Output` type.
use crate::differentiable::{companions, is_primitive, type_name, Context, Owner};
use crate::errors::Errors;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// The arithmetic operators' traits of `core::ops`, which cannot mark their methods: an
/// implementation's derivatives are the type's own (`a + b` on a struct calls them).
const OPERATOR_TRAITS: &[(&str, &str)] = &[
    ("Add", "add"),
    ("Sub", "sub"),
    ("Mul", "mul"),
    ("Div", "div"),
    ("Neg", "neg"),
];

/// Whether `method`, of an `impl` of the trait `trait_path`, is an arithmetic operator of
/// `core::ops`. Marking such an `impl` block marks its operator (`#[differentiable] impl
/// Add for V { fn add(..) }`): the block has nothing else to differentiate.
pub(crate) fn implements_operator(trait_path: Option<&syn::Path>, method: &syn::Ident) -> bool {
    implements_one_of(OPERATOR_TRAITS, trait_path, method)
}

/// Whether the trait `trait_path` and its `method` are one of `table`'s.
fn implements_one_of(
    table: &[(&str, &str)],
    trait_path: Option<&syn::Path>,
    method: &syn::Ident,
) -> bool {
    trait_path
        .and_then(|p| p.segments.last())
        .is_some_and(|t| table.iter().any(|(n, m)| t.ident == n && method == m))
}

/// The compound assignments of `core::ops` and their methods: `p += q` on a struct is
/// differentiated as `p = p + q`, so marking `add_assign` (or its block) asks for
/// nothing more, and the method is left as it is.
const ASSIGN_TRAITS: &[(&str, &str)] = &[
    ("AddAssign", "add_assign"),
    ("SubAssign", "sub_assign"),
    ("MulAssign", "mul_assign"),
    ("DivAssign", "div_assign"),
];

/// Whether `method`, of an `impl` of the trait `trait_path`, is a compound assignment
/// of `core::ops` ([`ASSIGN_TRAITS`]).
pub(crate) fn implements_assignment(trait_path: Option<&syn::Path>, method: &syn::Ident) -> bool {
    implements_one_of(ASSIGN_TRAITS, trait_path, method)
}

/// The derivatives of an operator's implementation (`fn add` in `impl Add for V`) as an
/// inherent `impl` of its struct, which the caller writes inside the method's body (the
/// trait's `impl` cannot hold items the trait does not declare; an item in a body is
/// global) or beside a marked block. With a float on the left (`impl Mul<V> for f64`)
/// they are `V`'s, for the associated function `V::__rhs_mul(lhs, v)` the body becomes.
pub(crate) fn operator_items(
    args: TokenStream,
    func: &syn::ImplItemFn,
    block: &syn::ItemImpl,
    errors: &mut Errors,
) -> Option<TokenStream> {
    // As public as the trait's method.
    let public = syn::ImplItemFn {
        vis: syn::parse_quote!(pub),
        ..output_qualified(func, block)
    };
    let primitive = type_name(&block.self_ty).is_some_and(|n| is_primitive(&n));
    let (owner_ty, function, plain) = if primitive {
        let rhs = operator_rhs(block).filter(|t| type_name(t).is_some_and(|n| !is_primitive(&n)));
        let made = rhs.and_then(|rhs| Some((rhs, rhs_function(&public, &block.self_ty)?)));
        let Some((rhs, f)) = made else {
            let name = type_name(&block.self_ty).unwrap_or_default();
            errors.push(syn::Error::new_spanned(
                &func.sig.ident,
                format!(
                    "an operator implemented for `{name}` is differentiable when its other operand is a struct of this crate (`impl Mul<V> for {name}`) taken by value"
                ),
            ));
            return None;
        };
        (rhs, f.clone(), Some(f))
    } else if let Some(name) = by_rhs(&func.sig.ident.to_string(), block) {
        let mut f = public;
        f.sig.ident = syn::Ident::new(&name, func.sig.ident.span());
        f.attrs.push(syn::parse_quote!(#[doc(hidden)]));
        ((*block.self_ty).clone(), f.clone(), Some(f))
    } else {
        ((*block.self_ty).clone(), public, None)
    };
    let owner = Some(Owner {
        ty: &owner_ty,
        declared_by_trait: false,
        trait_generic: false,
    });
    let context = Context::Impl(Some(&block.generics));
    let companions = companions(args, &function, context, owner, errors)?;
    if errors.is_empty() {
        crate::debug::dump(&companions);
    }
    let (params, _, where_clause) = block.generics.split_for_impl();
    // The companions call the operator's method as `Self::mul`: the trait is brought
    // into the method's body, where they are, as the `impl` names it
    // (`impl std::ops::Mul<f64> for V` with no `use`).
    let mut trait_path = block.trait_.as_ref().map(|(_, p, _)| p.clone());
    if let Some(last) = trait_path.as_mut().and_then(|p| p.segments.last_mut()) {
        last.arguments = syn::PathArguments::None;
    }
    let trait_import = trait_path.map(|p| quote!(#[allow(unused_imports)] use #p as _;));
    Some(quote! {
        #trait_import
        #[allow(non_local_definitions, dead_code, clippy::all)]
        impl #params #owner_ty #where_clause { #plain #companions }
    })
}

/// The `Output` type an operator's `impl` states (`type Output = V;`).
pub(crate) fn output_type(block: &syn::ItemImpl) -> Option<syn::Type> {
    block.items.iter().find_map(|item| match item {
        syn::ImplItem::Type(t) if t.ident == "Output" => Some(t.ty.clone()),
        _ => None,
    })
}

/// `Self::Output` in `func` (its signature and body) as the `impl`'s `Output` type: an
/// inherent `impl` has no `Output` of its own. The type is the block's (a marked block),
/// or else read from the source (`source::OperatorMethod::output_type`), or else
/// `<Self as Trait<Rhs>>::Output`, the trait as the `impl` names it.
fn output_qualified(func: &syn::ImplItemFn, block: &syn::ItemImpl) -> syn::ImplItemFn {
    struct Qualify(syn::Type);
    impl syn::visit_mut::VisitMut for Qualify {
        fn visit_type_mut(&mut self, t: &mut syn::Type) {
            if let syn::Type::Path(p) = t {
                let names: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                if p.qself.is_none() && names == ["Self", "Output"] {
                    *t = self.0.clone();
                    return;
                }
            }
            syn::visit_mut::visit_type_mut(self, t);
        }
    }
    let mut f = func.clone();
    let Some((_, trait_path, _)) = &block.trait_ else {
        return f;
    };
    let written = || {
        let seen = crate::source::seen(&func.sig.ident)?;
        let (owner, name) = called_as(block, &func.sig.ident.to_string())?;
        let found = seen
            .operators(&owner)
            .into_iter()
            .find(|o| o.method == name)?;
        syn::parse_str(found.output_type.as_deref()?).ok()
    };
    let output = output_type(block)
        .or_else(written)
        .unwrap_or_else(|| syn::parse_quote!(<Self as #trait_path>::Output));
    syn::visit_mut::VisitMut::visit_impl_item_fn_mut(&mut Qualify(output), &mut f);
    f
}

/// The name of the inherent copy of a binary operator's implementation, after its right
/// operand (see the module docs): `__mul_by_f64` for `impl Mul<f64> for V`, `__mul_by_v`
/// for `impl Mul for V` or `impl Mul<Self> for V`, `__mul_by_ref_v` for `impl Mul<&V>
/// for V`. `None` for `neg` (one per type) and right operands of other shapes.
pub(crate) fn by_rhs(method: &str, block: &syn::ItemImpl) -> Option<String> {
    if method == "neg" {
        return None;
    }
    let (_, path, _) = block.trait_.as_ref()?;
    let own = type_name(&block.self_ty)?;
    let named = |t: &syn::Type| type_name(t).map(|n| if n == "Self" { own.clone() } else { n });
    let rhs = match &path.segments.last()?.arguments {
        syn::PathArguments::None => own.clone(),
        syn::PathArguments::AngleBracketed(a) => match a.args.first()? {
            syn::GenericArgument::Type(syn::Type::Reference(r)) => {
                format!("ref_{}", named(&r.elem)?)
            }
            syn::GenericArgument::Type(t) => named(t)?,
            _ => return None,
        },
        syn::PathArguments::Parenthesized(_) => return None,
    };
    // (Lowercase: a function's name.)
    Some(format!("__{method}_by_{}", rhs.to_lowercase()))
}

/// The struct whose function the implementation of `method` in `block` becomes, and the
/// function's name: `("V", "__mul_by_f64")` for `impl Mul<f64> for V`, `("V", "neg")`,
/// `("V", "__rhs_mul")` for `impl Mul<V> for f64` (see the module docs).
pub(crate) fn called_as(block: &syn::ItemImpl, method: &str) -> Option<(String, String)> {
    let ty = type_name(&block.self_ty)?;
    if is_primitive(&ty) {
        let rhs = type_name(&operator_rhs(block)?)?;
        return Some((rhs, on_right(method)));
    }
    let name = by_rhs(method, block).unwrap_or_else(|| method.to_string());
    Some((ty, name))
}

/// The name of the function `method` of `impl Mul<V> for f64` becomes: `V::__rhs_mul`.
pub(crate) fn on_right(method: &str) -> String {
    format!("__rhs_{method}")
}

/// The operator method a name of [`on_right`] was made of (`mul` for `__rhs_mul`).
pub(crate) fn split_on_right(name: &str) -> Option<&str> {
    name.strip_prefix("__rhs_")
}

/// The name written in the source for a function of this module's: the operator's
/// method for its copies (`mul` for `__mul_by_f64` and `__rhs_mul`, at whose span they
/// are), else `name`.
pub(crate) fn written_as(name: &str) -> &str {
    match (split_on_right(name), split_by_rhs(name)) {
        (Some(method), _) | (None, Some((method, _))) => method,
        (None, None) => name,
    }
}

/// The operator method and right operand a name of [`by_rhs`] was made of
/// (`("mul", "f64")`).
pub(crate) fn split_by_rhs(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix("__")?.split_once("_by_")
}

/// The right operand's type of an operator's `impl` when it is a type named by a path,
/// taken by value (`V` in `impl Mul<V> for f64`; `None` for `impl Mul<&V> for f64`).
pub(crate) fn operator_rhs(block: &syn::ItemImpl) -> Option<syn::Type> {
    let (_, path, _) = block.trait_.as_ref()?;
    let syn::PathArguments::AngleBracketed(a) = &path.segments.last()?.arguments else {
        return None;
    };
    match a.args.first()? {
        syn::GenericArgument::Type(t @ syn::Type::Path(_)) => Some(t.clone()),
        _ => None,
    }
}

/// Whether an operator's `impl` takes both operands by value: implemented for a type
/// named by a path, with a right operand that is no reference (`impl Mul<f64> for V`,
/// `impl Add for V`, `impl Mul<V> for f64`), as second order calls it on dual twins.
pub(crate) fn operand_by_value(block: &syn::ItemImpl) -> bool {
    let rhs_by_value = match block
        .trait_
        .as_ref()
        .and_then(|(_, p, _)| p.segments.last())
    {
        Some(s) => match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .all(|g| !matches!(g, syn::GenericArgument::Type(syn::Type::Reference(_)))),
            _ => true,
        },
        None => false,
    };
    matches!(&*block.self_ty, syn::Type::Path(_)) && rhs_by_value
}

/// `fn mul(self, v: V) -> V` of `impl Mul<V> for f64` as the associated function
/// `fn __rhs_mul(lhs: f64, v: V) -> V` of `V` (`self` read as `lhs`, `Self` as `f64`);
/// `None` when the receiver is not taken by value.
fn rhs_function(func: &syn::ImplItemFn, lhs_ty: &syn::Type) -> Option<syn::ImplItemFn> {
    let mut f = func.clone();
    let first = f.sig.inputs.first_mut()?;
    let syn::FnArg::Receiver(r) = first else {
        return None;
    };
    if r.reference.is_some() {
        return None;
    }
    let mutability = r.mutability;
    *first = syn::parse_quote!(#mutability lhs: #lhs_ty);
    f.sig.ident = syn::Ident::new(&on_right(&f.sig.ident.to_string()), f.sig.ident.span());
    f.block = syn::parse2(self_as(f.block.to_token_stream(), lhs_ty)).ok()?;
    f.sig.output = syn::parse2(self_as(f.sig.output.to_token_stream(), lhs_ty)).ok()?;
    f.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    Some(f)
}

/// `ts` with `self` read as `lhs` and `Self` as `lhs_ty`.
fn self_as(ts: TokenStream, lhs_ty: &syn::Type) -> TokenStream {
    use proc_macro2::TokenTree;
    ts.into_iter()
        .flat_map(|tt| -> Vec<TokenTree> {
            match tt {
                TokenTree::Ident(i) if i == "self" => {
                    vec![TokenTree::Ident(proc_macro2::Ident::new(
                        "lhs",
                        crate::hygiene::own_at(i.span()),
                    ))]
                }
                TokenTree::Ident(i) if i == "Self" => {
                    lhs_ty.to_token_stream().into_iter().collect()
                }
                TokenTree::Group(g) => {
                    let mut ng =
                        proc_macro2::Group::new(g.delimiter(), self_as(g.stream(), lhs_ty));
                    ng.set_span(g.span());
                    vec![TokenTree::Group(ng)]
                }
                other => vec![other],
            }
        })
        .collect()
}
