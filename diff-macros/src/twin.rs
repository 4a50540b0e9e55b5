//! The *dual twin* of a struct, for second order (docs/ARCHITECTURE.md, "Second order"):
//! `#[derive(Differentiable)]` on
//! ```text
//! struct S { a: f64, v: Vec<f64>, n: usize, #[no_derivative] name: String }
//! ```
//! also emits a hidden `__DiffDualS { a: Dual<f64>, v: Vec<Dual<f64>>, n: usize, name:
//! String }`, Differentiable like `S`, with `Lift<f64> for S` converting into it. The
//! dual companion of a function written for `f64` holds a struct built of values that
//! carry a derivative in the twin (`S { a: x, .. }` becomes `__DiffDualS { a: x, .. }`,
//! a parameter `s: S` is taken as `__DiffDualS`).
//!
//! The derive and `#[differentiable]` decide from one rule ([`of_fields`]) whether a
//! struct has a twin: the derive from the struct's tokens, the function's macro from the
//! struct's definition in the crate's source (`source::Seen::twin`), so the companion names a
//! twin only where the derive made one.
use proc_macro2::{Ident, Span};

/// What the function's macro needs to know of a struct's twin.
#[derive(Clone, Debug, PartialEq)]
pub struct Twin {
    /// The struct's name (empty until the source reader sets it).
    pub name: String,
    /// `f64` or `f32`: the scalar its fields are built of.
    pub scalar: &'static str,
    /// The fields converted to dual numbers (the others are kept as they are), those of
    /// `nested` included.
    pub floats: Vec<String>,
    /// The fields holding another struct (`pos: Vec2`), which must have a twin of the
    /// same scalar ([`resolve`]): the twin holds its twin.
    pub nested: Vec<(String, String)>,
    /// The fields holding a `Vec` or an array of another struct (`layers: Vec<Layer>`),
    /// which must have a twin of the same scalar: the twin holds a `Vec` (array) of its
    /// twin.
    pub nested_elements: Vec<(String, String)>,
    /// The methods of its inherent `impl` blocks marked `#[differentiable]` with a
    /// receiver ([`takes_twin`]): each has a companion taking the twin
    /// (`__vjp_dual_self_m`). Set by the source reader.
    pub methods: Vec<String>,
    /// Of those, the ones returning the struct (`-> Self`, `-> S`; an operator whose
    /// `Output` is the struct). Set by the source reader.
    pub methods_returning_it: Vec<String>,
    /// Of those, the ones returning another struct, with its name (`fn rhs(&self, s: S)
    /// -> S` of `P`: `("rhs", "S")`). Set by the source reader.
    pub methods_returning: Vec<(String, String)>,
    /// The associated functions without a receiver of its inherent `impl` blocks marked
    /// `#[differentiable]` (`S::new`), whose dual companions exist, and whether each
    /// returns the struct (`-> Self`, `-> S`). Set by the source reader.
    pub functions: Vec<(String, bool)>,
    /// The free functions of the crate that return the struct (`fn make(k: f64) -> S`),
    /// as the source shows them. Set by the source reader.
    pub returned_by: Vec<String>,
}

/// What a twin's name starts with.
const PREFIX: &str = "__DiffDual";

/// The twin's name: `__DiffDualS` for `S`.
pub fn ident(name: &str, span: Span) -> Ident {
    Ident::new(&format!("{PREFIX}{name}"), span)
}

/// The struct a twin's name is of: `S` for `__DiffDualS` (`None` for another name).
fn struct_of(twin: &Ident) -> Option<Ident> {
    let name = twin.to_string();
    let s = name.strip_prefix(PREFIX).filter(|s| !s.is_empty())?;
    Some(Ident::new(s, twin.span()))
}

/// For each struct a dual body builds (`S { a: x, .. }` or `m::S { .. }`, rewritten to
/// its twin `__DiffDualS { .. }`): the twin's name as a local alias reached through the
/// struct's name or path as written, `type __DiffDualS = <S as Lift<f64>>::Lifted;`, so
/// the twin needs no import of its own where `S` is imported or re-exported by name.
pub fn aliases(func: &crate::ir::Function, scalar: &Ident) -> proc_macro2::TokenStream {
    // Those built through a path of modules, by that path (`Function::twin_paths`).
    let written: Vec<(Ident, proc_macro2::TokenStream)> = func
        .twin_paths
        .iter()
        .filter_map(|p| {
            let s = &p.segments.last()?.ident;
            Some((ident(&s.to_string(), s.span()), quote::quote!(#p)))
        })
        .collect();
    let mut names: Vec<(Ident, proc_macro2::TokenStream)> = Vec::new();
    for stmt in func.regions.iter().flat_map(|r| r.stmts.iter()) {
        if let crate::ir::Inst::Struct(path, _) = &stmt.inst {
            let Some(twin) = path.get_ident() else {
                continue;
            };
            let known = names.iter().chain(&written).any(|(t, _)| t == twin);
            if let Some(s) = struct_of(twin).filter(|_| !known) {
                names.push((twin.clone(), quote::quote!(#s)));
            }
        }
    }
    names
        .iter()
        .chain(&written)
        .map(|(twin, s)| {
            quote::quote! {
                #[allow(non_camel_case_types)]
                type #twin = <#s as ::diff::__private::Lift<#scalar>>::Lifted;
            }
        })
        .collect()
}

/// Whether a method with this receiver has a companion taking the struct's twin:
/// `self`, `&self` (both take the twin by value) or `&mut self` (by `&mut`), written
/// without a type.
pub fn takes_twin(receiver: &syn::Receiver) -> bool {
    receiver.colon_token.is_none()
}

/// Whether a field of this type is `Copy` in the twin (floats, integers, arrays and
/// tuples of them).
pub fn copy(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p.path.get_ident().is_some_and(|i| {
            let i = i.to_string();
            i.starts_with(|c: char| c.is_ascii_lowercase())
        }),
        syn::Type::Array(a) => copy(&a.elem),
        syn::Type::Paren(p) => copy(&p.elem),
        syn::Type::Group(g) => copy(&g.elem),
        syn::Type::Tuple(t) => t.elems.iter().all(copy),
        _ => false,
    }
}

/// What a field's type is to the twin.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum FieldKind {
    /// Built of the scalar (`f64`, `Vec<f64>`, `[f64; 3]`, `(f64, usize)`,
    /// `Option<f64>`): converted.
    Floats(&'static str),
    /// Built of integers, booleans, characters or strings: kept as it is.
    Inert,
    /// Anything else (a user's type, a generic parameter): no twin.
    Unknown,
}

fn combine(a: FieldKind, b: FieldKind) -> FieldKind {
    use FieldKind::*;
    match (a, b) {
        (Unknown, _) | (_, Unknown) => Unknown,
        (Inert, k) | (k, Inert) => k,
        (Floats(s), Floats(t)) if s == t => Floats(s),
        _ => Unknown,
    }
}

/// The struct a field's type names, when it is one name of a type (`Vec2`, not
/// `String`, no generic arguments): a candidate for a nested twin.
fn struct_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let id = p.path.get_ident()?.to_string();
            (id.starts_with(|c: char| c.is_ascii_uppercase()) && id != "String").then_some(id)
        }
        syn::Type::Paren(p) => struct_name(&p.elem),
        syn::Type::Group(g) => struct_name(&g.elem),
        _ => None,
    }
}

/// The struct the elements of a field's type are (`Vec<Layer>`, `[Point; 3]`).
fn element_struct_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Array(a) => struct_name(&a.elem),
        syn::Type::Paren(p) => element_struct_name(&p.elem),
        syn::Type::Group(g) => element_struct_name(&g.elem),
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let last = &p.path.segments[0];
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args)
                    if last.ident == "Vec" && args.args.len() == 1 =>
                {
                    match &args.args[0] {
                        syn::GenericArgument::Type(t) => struct_name(t),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// A twin whose nested structs (`Twin::nested`, `Twin::nested_elements`) each have a
/// twin (`lookup`) of one scalar, with that scalar; `None` otherwise.
pub fn resolve(mut twin: Twin, lookup: impl Fn(&str) -> Option<Twin>) -> Option<Twin> {
    for (_, name) in twin.nested.iter().chain(&twin.nested_elements) {
        let inner = lookup(name)?;
        if twin.scalar.is_empty() {
            twin.scalar = inner.scalar;
        } else if inner.scalar != twin.scalar {
            return None;
        }
    }
    (!twin.scalar.is_empty()).then_some(twin)
}

/// The kind of a field's type, from its syntax.
pub fn field_kind(ty: &syn::Type) -> FieldKind {
    const INERT: &[&str] = &[
        "bool", "char", "String", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32",
        "u64", "u128", "usize",
    ];
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return FieldKind::Unknown;
            };
            let name = last.ident.to_string();
            match &last.arguments {
                syn::PathArguments::None if p.path.segments.len() == 1 => match name.as_str() {
                    "f64" => FieldKind::Floats("f64"),
                    "f32" => FieldKind::Floats("f32"),
                    n if INERT.contains(&n) => FieldKind::Inert,
                    _ => FieldKind::Unknown,
                },
                syn::PathArguments::AngleBracketed(args)
                    if (name == "Vec" || name == "Option") && args.args.len() == 1 =>
                {
                    match args.args.first() {
                        Some(syn::GenericArgument::Type(t)) => field_kind(t),
                        _ => FieldKind::Unknown,
                    }
                }
                _ => FieldKind::Unknown,
            }
        }
        syn::Type::Array(a) => field_kind(&a.elem),
        syn::Type::Paren(p) => field_kind(&p.elem),
        syn::Type::Group(g) => field_kind(&g.elem),
        // `Lift` and `Differentiable` go up to six elements.
        syn::Type::Tuple(t) if !t.elems.is_empty() && t.elems.len() <= 6 => t
            .elems
            .iter()
            .map(field_kind)
            .fold(FieldKind::Inert, combine),
        _ => FieldKind::Unknown,
    }
}

/// The twin of a struct without generic parameters whose fields are `(name, marked
/// #[no_derivative], type)`: every field not marked is of a known kind, at least one is
/// built of floats, all of one scalar. A `#[no_derivative]` field is kept as it is (its
/// type also of a known kind, for the twin's `Clone`).
pub fn of_fields<'a>(
    fields: impl IntoIterator<Item = (String, bool, &'a syn::Type)>,
) -> Option<Twin> {
    let mut kind = FieldKind::Inert;
    let mut floats = Vec::new();
    let mut nested = Vec::new();
    let mut nested_elements = Vec::new();
    for (name, constant, ty) in fields {
        if let (false, Some(s)) = (constant, struct_name(ty)) {
            floats.push(name.clone());
            nested.push((name, s));
            continue;
        }
        if let (false, Some(s)) = (constant, element_struct_name(ty)) {
            floats.push(name.clone());
            nested_elements.push((name, s));
            continue;
        }
        let k = field_kind(ty);
        if constant {
            // Kept as it is, but cloned with the twin: a type the macro knows.
            if k == FieldKind::Unknown {
                return None;
            }
            continue;
        }
        if let FieldKind::Floats(_) = k {
            floats.push(name);
        }
        kind = combine(kind, k);
    }
    match kind {
        // The scalar of nested structs only: found by `resolve`.
        FieldKind::Inert if !nested.is_empty() || !nested_elements.is_empty() => Some(Twin {
            name: String::new(),
            scalar: "",
            floats,
            nested,
            nested_elements,
            methods: Vec::new(),
            methods_returning_it: Vec::new(),
            methods_returning: Vec::new(),
            functions: Vec::new(),
            returned_by: Vec::new(),
        }),
        FieldKind::Floats(scalar) => Some(Twin {
            name: String::new(),
            scalar,
            floats,
            nested,
            nested_elements,
            methods: Vec::new(),
            methods_returning_it: Vec::new(),
            methods_returning: Vec::new(),
            functions: Vec::new(),
            returned_by: Vec::new(),
        }),
        _ => None,
    }
}

/// Whether a method a trait marks has a companion taking its receiver as the struct's
/// twin (`__vjp_dual_self_m`), declared by the trait and defined by implementations for
/// structs with a twin: read from the signature alone, so that the trait, its
/// implementations and their callers agree. It takes `self` or `&self`, differentiated
/// (not `self_left_out` by `wrt`), has no type parameters, its other parameters and its
/// result are floats of one type, and the trait is not generic (`generic`). The float
/// type.
pub fn trait_twin_receiver(
    sig: &syn::Signature,
    self_left_out: bool,
    generic: bool,
) -> Option<&'static str> {
    let receiver = sig.receiver()?;
    let lifetimes_only = sig
        .generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
    let updated = receiver.reference.is_some() && receiver.mutability.is_some();
    if generic || self_left_out || updated || !takes_twin(receiver) || !lifetimes_only {
        return None;
    }
    let float = |t: &syn::Type| match t {
        syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64") => Some("f64"),
        syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("f32") => Some("f32"),
        _ => None,
    };
    let syn::ReturnType::Type(_, out) = &sig.output else {
        return None;
    };
    let scalar = float(out)?;
    sig.inputs
        .iter()
        .skip(1)
        .all(|a| matches!(a, syn::FnArg::Typed(t) if float(&t.ty) == Some(scalar)))
        .then_some(scalar)
}

/// Whether a struct's type parameter may stand for a float (`T`, `T: Float + Debug`):
/// bounded by numeric and common traits only. A struct generic over such parameters is
/// taken at dual numbers by second order (derive's `generic_lift`, `lifting.rs`); one
/// bound by another trait (`S: System`) stands for a type of the user's, which dual
/// numbers would not implement.
pub fn float_like_param(t: &syn::TypeParam) -> bool {
    const NUMERIC: &[&str] = &[
        "Float",
        "Real",
        "Copy",
        "Clone",
        "Debug",
        "Display",
        "Default",
        "Differentiable",
        "PartialOrd",
        "PartialEq",
        "FromPrimitive",
        "ToPrimitive",
        "NumCast",
        "Num",
        "NumAssign",
        "NumAssignOps",
        "NumOps",
        "Sum",
        "Product",
        "Zero",
        "One",
        "Signed",
        "FloatConst",
        "Send",
        "Sync",
        "Sized",
        "Add",
        "Sub",
        "Mul",
        "Div",
        "Neg",
        "Rem",
        "AddAssign",
        "SubAssign",
        "MulAssign",
        "DivAssign",
    ];
    t.bounds.iter().all(|b| match b {
        syn::TypeParamBound::Trait(tr) => tr
            .path
            .segments
            .last()
            .is_some_and(|s| NUMERIC.contains(&s.ident.to_string().as_str())),
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twin(fields: &[(&str, bool, &str)]) -> Option<Twin> {
        let types: Vec<syn::Type> = fields
            .iter()
            .map(|(_, _, t)| syn::parse_str(t).unwrap())
            .collect();
        of_fields(
            fields
                .iter()
                .zip(&types)
                .map(|((n, c, _), t)| (n.to_string(), *c, t)),
        )
    }

    #[test]
    fn which_structs_have_twins() {
        let t = twin(&[
            ("a", false, "f64"),
            ("n", false, "usize"),
            ("v", false, "Vec<f64>"),
        ]);
        assert_eq!(
            t.map(|t| t.floats),
            Some(vec!["a".to_string(), "v".to_string()])
        );
        assert_eq!(twin(&[("n", false, "usize")]), None);
        assert_eq!(twin(&[("a", false, "f64"), ("b", false, "f32")]), None);
        let nested = twin(&[("a", false, "f64"), ("p", false, "Point")]).unwrap();
        assert_eq!(nested.nested, vec![("p".to_string(), "Point".to_string())]);
        assert_eq!(resolve(nested.clone(), |_| None), None);
        let point = twin(&[("x", false, "f64")]);
        assert_eq!(
            resolve(nested, |_| point.clone()).map(|t| t.floats.len()),
            Some(2)
        );
        assert_eq!(twin(&[("a", false, "f64"), ("p", true, "Point")]), None);
        let kept = twin(&[("a", false, "[f64; 3]"), ("k", true, "f32")]);
        assert_eq!(kept.map(|t| (t.scalar, t.floats.len())), Some(("f64", 1)));
        let layers = twin(&[("layers", false, "Vec<Layer>"), ("n", false, "usize")]).unwrap();
        assert_eq!(
            layers.nested_elements,
            vec![("layers".to_string(), "Layer".to_string())]
        );
        assert_eq!(resolve(layers.clone(), |_| None), None);
        assert_eq!(
            resolve(layers, |_| point.clone()).map(|t| t.scalar),
            Some("f64")
        );
        let tuple = twin(&[("t", false, "(f32, usize)")]);
        assert_eq!(tuple.map(|t| t.scalar), Some("f32"));
    }
}
