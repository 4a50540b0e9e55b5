//! What a type's tangent is, read from its syntax. Types the macro cannot classify are
//! asked of rustc through `<T as ::diff::Differentiable>::TangentVector`.
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::Type;

/// Whether tokens name the identifier `name` anywhere, groups included (`Self`, `f64`).
pub fn mentions(ts: &TokenStream, name: &str) -> bool {
    ts.clone().into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions(&g.stream(), name),
        _ => false,
    })
}

/// Generic parameters of the function, by role.
#[derive(Clone, Debug, Default)]
pub struct Generics {
    /// Type parameters bounded by `Float` or `Real`: scalars, their own tangent.
    pub scalars: Vec<String>,
    /// Other type parameters bounded by `Differentiable`.
    pub differentiable: Vec<String>,
    /// All type parameters.
    pub all: Vec<String>,
    /// Scalar type parameters of an enclosing `impl` (not declared by the function).
    pub outer: Vec<String>,
}

/// Whether `name` names an integer type (`ir::INTEGER_TYPES`) or `bool`: Differentiable
/// with the tangent `NoTangent`, which carries nothing, so a parameter of one alone is
/// left out of the derivative.
fn discrete_name(name: &str) -> bool {
    name == "bool" || crate::ir::INTEGER_TYPES.contains(&name)
}

/// Other standard types that carry no derivative.
const NOT_DIFFERENTIABLE: &[&str] = &["char", "str", "String", "Result", "Range", "RangeInclusive"];

/// The tangent type of `ty`, or `None` when values of `ty` carry no derivative.
pub fn tangent(ty: &Type, g: &Generics) -> Option<TokenStream> {
    match ty {
        Type::Reference(r) => tangent(&r.elem, g),
        Type::Paren(p) => tangent(&p.elem, g),
        Type::Group(p) => tangent(&p.elem, g),
        Type::Slice(s) => tangent(&s.elem, g).map(|t| quote!(::std::vec::Vec<#t>)),
        Type::Array(a) => {
            let len = &a.len;
            tangent(&a.elem, g).map(|t| quote!([#t; #len]))
        }
        Type::Tuple(t) if t.elems.is_empty() => None,
        // A tuple mixing floats with integers or `bool`s (`(f64, usize)`) has the
        // tangent `(f64, NoTangent)`, as diff-core defines it; one of discrete values
        // only carries no derivative.
        Type::Tuple(t) => {
            let parts: Vec<Option<TokenStream>> = t.elems.iter().map(|e| tangent(e, g)).collect();
            if parts.iter().all(Option::is_none) {
                return None;
            }
            let parts = parts
                .into_iter()
                .zip(&t.elems)
                .map(|(p, e)| {
                    p.or_else(|| is_discrete(e).then(|| quote!(::diff::NoTangent)))
                        .or_else(|| holds_discrete(e).then(|| assoc(e)))
                })
                .collect::<Option<Vec<TokenStream>>>()?;
            Some(quote!((#(#parts,)*)))
        }
        Type::Path(p) if p.qself.is_none() => path_tangent(ty, &p.path, g),
        Type::ImplTrait(_)
        | Type::BareFn(_)
        | Type::TraitObject(_)
        | Type::Never(_)
        | Type::Ptr(_) => None,
        other => Some(assoc(other)),
    }
}

/// Whether `ty` is a `Vec`, array or `Option` of integers or `bool`s (a permutation, a
/// ranking): Differentiable, its tangent built of `NoTangent`.
fn holds_discrete(ty: &Type) -> bool {
    element_of_collection(ty).is_some_and(|e| is_discrete(e) || holds_discrete(e))
}

/// The element type of an array, `Vec` or `Option`.
fn element_of_collection(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Array(a) => Some(&a.elem),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            match args.args.first() {
                Some(syn::GenericArgument::Type(t))
                    if last.ident == "Vec" || last.ident == "Option" =>
                {
                    Some(t)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `ty` holds only integers and `bool`s, also behind references and in slices
/// and tuples (`idx: &mut Vec<usize>`, `&[(usize, bool)]`): a value of it never carries
/// a derivative, nor does what a call writes into it.
pub fn only_discrete(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => only_discrete(&r.elem),
        Type::Paren(p) => only_discrete(&p.elem),
        Type::Slice(s) => only_discrete(&s.elem),
        Type::Tuple(t) => !t.elems.is_empty() && t.elems.iter().all(only_discrete),
        t => is_discrete(t) || element_of_collection(t).is_some_and(only_discrete),
    }
}

/// Whether a parameter of type `ty` is iterated as it is, never indexed: of a type
/// parameter of the function's (`g`) that is neither a scalar nor bounded by
/// `Differentiable` (`coefficients: I` with `I: IntoIterator<Item = f64>`), or of an
/// `impl Trait` type.
pub fn iterated_as_it_is(ty: &Type, g: &Generics) -> bool {
    match ty {
        Type::ImplTrait(_) => true,
        Type::Path(p) => p.path.get_ident().is_some_and(|id| {
            g.all.iter().any(|n| id == n)
                && !g.scalars.iter().chain(&g.differentiable).any(|n| id == n)
        }),
        _ => false,
    }
}

/// Whether `ty` is an integer or `bool`: Differentiable with the tangent `NoTangent`.
pub fn is_discrete(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| discrete_name(&i.to_string())))
}

/// Whether a tangent type is (or contains) one asked of rustc: the parameter's type is
/// one the macro cannot classify from its syntax.
pub fn is_asked(tangent: &TokenStream) -> bool {
    tangent.clone().into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => i == "Differentiable",
        proc_macro2::TokenTree::Group(g) => is_asked(&g.stream()),
        _ => false,
    })
}

fn assoc(ty: &impl ToTokens) -> TokenStream {
    quote!(<#ty as ::diff::Differentiable>::TangentVector)
}

fn path_tangent(ty: &Type, path: &syn::Path, g: &Generics) -> Option<TokenStream> {
    let last = path.segments.last()?;
    let name = last.ident.to_string();
    if path.segments.len() == 1 {
        if name == "f32" || name == "f64" || g.scalars.contains(&name) {
            return Some(ty.to_token_stream());
        }
        if NOT_DIFFERENTIABLE.contains(&name.as_str()) || discrete_name(&name) {
            return None;
        }
        if g.all.contains(&name) && !g.differentiable.contains(&name) {
            return None;
        }
    }
    if name == "Vec" {
        if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
            if let Some(syn::GenericArgument::Type(elem)) = args.args.first() {
                return tangent(elem, g).map(|t| quote!(::std::vec::Vec<#t>));
            }
        }
    }
    if let Some(elem) = type_argument(ty, "Option") {
        // An `Option` of a reference (`Option<&Config>`, `Option<&[f64]>`) is not
        // Differentiable; one of a type the macro cannot classify is asked of rustc whole.
        if matches!(elem, Type::Reference(_)) {
            return None;
        }
        let t = tangent(elem, g)?;
        return Some(if is_asked(&t) {
            assoc(ty)
        } else {
            quote!(::core::option::Option<#t>)
        });
    }
    Some(assoc(ty))
}

/// Reads the roles of the generic parameters from their bounds.
pub fn generics(gen: &syn::Generics) -> Generics {
    let mut out = Generics::default();
    let mut bounds: Vec<(String, Vec<String>)> = Vec::new();
    for p in gen.type_params() {
        let names = p.bounds.iter().filter_map(bound_name).collect();
        bounds.push((p.ident.to_string(), names));
    }
    if let Some(w) = &gen.where_clause {
        for pred in &w.predicates {
            if let syn::WherePredicate::Type(t) = pred {
                let key = t.bounded_ty.to_token_stream().to_string();
                if let Some(entry) = bounds.iter_mut().find(|(n, _)| *n == key) {
                    entry.1.extend(t.bounds.iter().filter_map(bound_name));
                }
            }
        }
    }
    for (name, bs) in bounds {
        if bs.iter().any(|b| b == "Float" || b == "Real") {
            out.scalars.push(name.clone());
        } else if bs.iter().any(|b| b == "Differentiable") {
            out.differentiable.push(name.clone());
        }
        out.all.push(name);
    }
    out
}

fn bound_name(b: &syn::TypeParamBound) -> Option<String> {
    match b {
        syn::TypeParamBound::Trait(t) => t.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The element type of `Vec<T>` or `[T; N]` (through parentheses).
pub fn element_type(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Array(a) => Some(&a.elem),
        Type::Paren(p) => element_type(&p.elem),
        _ => type_argument(ty, "Vec"),
    }
}

/// The one type argument of `name<T>` (`Vec<f64>`, `Option<f64>`, also by a path such as
/// `std::option::Option<f64>`).
pub fn type_argument<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a)
            if p.qself.is_none() && last.ident == name && a.args.len() == 1 =>
        {
            match a.args.first() {
                Some(syn::GenericArgument::Type(t)) => Some(t),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn t(ty: Type, g: &Generics) -> Option<String> {
        tangent(&ty, g).map(|t| t.to_string().replace(' ', ""))
    }

    #[test]
    fn classifies_common_types() {
        let g = generics(&parse_quote!(<T: Float + Sum, F: Fn(f64) -> f64, const N: usize>));
        assert_eq!(g.scalars, ["T"]);
        assert_eq!(t(parse_quote!(f64), &g).unwrap(), "f64");
        assert_eq!(t(parse_quote!(&[T]), &g).unwrap(), "::std::vec::Vec<T>");
        assert_eq!(t(parse_quote!(&[f32; N]), &g).unwrap(), "[f32;N]");
        assert_eq!(
            t(parse_quote!(Vec<f64>), &g).unwrap(),
            "::std::vec::Vec<f64>"
        );
        assert_eq!(t(parse_quote!((f64, T)), &g).unwrap(), "(f64,T,)");
        assert!(t(parse_quote!(usize), &g).is_none());
        assert!(t(parse_quote!(F), &g).is_none());
        assert!(t(parse_quote!(&str), &g).is_none());
        assert_eq!(
            t(parse_quote!(Model), &g).unwrap(),
            "<Modelas::diff::Differentiable>::TangentVector"
        );
    }
}
