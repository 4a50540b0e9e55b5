//! `#[differentiable]`: the pipeline from the user's function to its companions.
use crate::emit::companion::{Companions, Signatures};
use crate::errors::Errors;
use crate::operator_impls::{implements_assignment, implements_operator, operator_items};
use crate::parse::attr::DifferentiableArgs;
use crate::parse::signature::FnSig;
use crate::pipeline::{self, Body};
use crate::requirements::Need;
use crate::source::Enclosing;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;

/// Expands the attribute. On any error the original function is still emitted, with
/// every error beside it and companions of the right signatures (whose bodies are never
/// run: the crate does not compile), so that callers do not fail again.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    use crate::parse::ungroup::Ungroup;
    use syn::visit_mut::VisitMut;
    // (Each parsed item loses the invisible groups of a `macro_rules!` expansion,
    // `parse/ungroup.rs`: rustc would not keep their grouping in the output.)
    if let Ok(mut block) = syn::parse2::<syn::ItemImpl>(item.clone()) {
        Ungroup.visit_item_impl_mut(&mut block);
        return expand_impl(args, block);
    }
    if let Ok(mut block) = syn::parse2::<syn::ItemTrait>(item.clone()) {
        Ungroup.visit_item_trait_mut(&mut block);
        return expand_trait(args, block);
    }
    let func: syn::ImplItemFn = match syn::parse2(item.clone()) {
        Ok(mut f) => {
            Ungroup.visit_impl_item_fn_mut(&mut f);
            f
        }
        Err(_) => {
            if let Ok(decl) = syn::parse2::<syn::TraitItemFn>(item.clone()) {
                // A method declared in a trait, without a body.
                let mut errors = Errors::default();
                let written_in = crate::source::enclosing(&decl.sig.ident);
                let context = match &written_in {
                    Enclosing::Trait(block) => Context::Trait(Some(&block.generics)),
                    _ => Context::Trait(None),
                };
                let declarations = declarations(args, &decl.sig, context, &mut errors);
                let mut decl = decl;
                mark_signature(&mut decl.sig);
                let errors = errors.to_compile_errors();
                return quote! { #decl #errors #declarations };
            }
            let e = syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[differentiable] applies to a function or a method",
            );
            let err = e.to_compile_error();
            return quote! { #err #item };
        }
    };
    let mut errors = Errors::default();
    // Where the function is written, read from its file: an `impl` block's generics are
    // then known exactly, as when the block is marked.
    let written_in = crate::source::enclosing(&func.sig.ident);
    if let Enclosing::Impl(block) = &written_in {
        let trait_path = block.trait_.as_ref().map(|(_, p, _)| p);
        if implements_assignment(trait_path, &func.sig.ident) {
            return quote! { #func };
        }
        if implements_operator(trait_path, &func.sig.ident) {
            let items = operator_items(args, &func, block, &mut errors);
            let mut func = func;
            if let Some(items) = items {
                func.block
                    .stmts
                    .insert(0, syn::Stmt::Item(syn::Item::Verbatim(items)));
            }
            let errors = errors.to_compile_errors();
            return quote! { #func #errors };
        }
    }
    if let Some(e) = unmarked_trait_method(&written_in, &func.sig.ident) {
        let e = e.to_compile_error();
        return quote! { #func #e };
    }
    let context = match &written_in {
        Enclosing::Impl(block) => Context::Impl(Some(&block.generics)),
        Enclosing::Trait(block) => Context::Trait(Some(&block.generics)),
        _ if looks_like_method(&func) => Context::Impl(None),
        _ => Context::Module,
    };
    if matches!(context, Context::Module)
        && PRIMITIVES.contains(&func.sig.ident.to_string().as_str())
    {
        let e = syn::Error::new_spanned(
            &func.sig.ident,
            format!(
                "a differentiable function cannot be named `{0}`: its derivatives travel with its name, which would hide the type `{0}` in this module; rename the function",
                func.sig.ident
            ),
        )
        .to_compile_error();
        return quote! { #func #e };
    }
    let self_ty = match &written_in {
        Enclosing::Impl(block) => Some(Owner {
            ty: &block.self_ty,
            declared_by_trait: block.trait_.is_some(),
            trait_generic: trait_generic(block),
        }),
        _ => None,
    };
    // The companions read the crate's type aliases as their types (`parse/aliases.rs`);
    // the function stays as written, using its aliases.
    let mut expanded = func.clone();
    crate::parse::aliases::expand(&mut expanded, func.sig.ident.span(), |e, f| {
        e.visit_impl_item_fn_mut(f)
    });
    let companions = companions(args, &expanded, context, self_ty, &mut errors);
    if errors.is_empty() {
        if let Some(companions) = &companions {
            crate::debug::dump(companions);
        }
    }
    // A method that may implement a trait's (an inherent method with a visibility
    // cannot) carries the trait's mark.
    let mut func = func;
    let may_implement_a_trait = match &written_in {
        Enclosing::Impl(block) => block.trait_.is_some(),
        Enclosing::Trait(_) => true,
        _ => {
            matches!(context, Context::Impl(None)) && matches!(func.vis, syn::Visibility::Inherited)
        }
    };
    if may_implement_a_trait {
        mark_signature(&mut func.sig);
    }
    let errors = errors.to_compile_errors();
    quote! { #func #errors #companions }
}

/// The type an `impl` block is for, as far as the macro knows it.
#[derive(Clone, Copy)]
pub(crate) struct Owner<'a> {
    pub(crate) ty: &'a syn::Type,
    /// Whether a trait declares the block's methods (and so what they take).
    pub(crate) declared_by_trait: bool,
    /// Whether that trait is named with generic arguments (`impl Continuous<f64, f64>`).
    pub(crate) trait_generic: bool,
}

/// Whether a trait's generics have type parameters.
fn has_type_params(g: &syn::Generics) -> bool {
    g.type_params().next().is_some()
}

/// Whether `impl Trait<..> for T` names its trait with generic arguments.
pub(crate) fn trait_generic(block: &syn::ItemImpl) -> bool {
    block
        .trait_
        .as_ref()
        .is_some_and(|(_, p, _)| p.segments.last().is_some_and(|s| !s.arguments.is_none()))
}

/// The name a type is known by in the source (`Config` for `&'a m::Config<T>`): the last
/// segment of a path, under references.
pub(crate) fn type_name(mut ty: &syn::Type) -> Option<String> {
    while let syn::Type::Reference(r) = ty {
        ty = &r.elem;
    }
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().map(|s| s.ident.to_string())
        }
        _ => None,
    }
}

/// The type of the values a parameter of type `ty` holds, through references and the
/// containers whose tangent is their elements' (`&[Sphere]`, `Vec<Sphere>`, `[Sphere;
/// 3]`, `Option<Sphere>`, `Box<Sphere>`: `Sphere`): a container is Differentiable exactly
/// when its elements are.
fn element_type(mut ty: &syn::Type) -> &syn::Type {
    loop {
        ty = match ty {
            syn::Type::Reference(r) => &r.elem,
            syn::Type::Slice(s) => &s.elem,
            syn::Type::Array(a) => &a.elem,
            syn::Type::Paren(p) => &p.elem,
            syn::Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return ty;
                };
                let container =
                    ["Vec", "Option", "Box", "VecDeque"].contains(&last.ident.to_string().as_str());
                match &last.arguments {
                    syn::PathArguments::AngleBracketed(a) if container && a.args.len() == 1 => {
                        match &a.args[0] {
                            syn::GenericArgument::Type(t) => t,
                            _ => return ty,
                        }
                    }
                    _ => return ty,
                }
            }
            _ => return ty,
        };
    }
}

/// Leaves out of the derivative the parameters whose type the crate's source defines
/// without making it Differentiable (`&Config`, an enum; [`crate::source`]), and the
/// receiver when `self_ty` is such a type (a method no trait declares), whether or not a
/// derivative would flow from them; the companions check the types are not
/// Differentiable. Those the definitions make Differentiable are differentiated whether
/// or not a derivative flows. Those whose definitions are not found stay undecided
/// (rustc asks for `Differentiable` if a derivative flows from them).
fn leave_out_by_definition(sig: &mut FnSig, func: &syn::ImplItemFn, self_ty: Option<&syn::Type>) {
    for (i, input) in func.sig.inputs.iter().enumerate() {
        let p = &sig.params[i];
        if p.tangent.is_none() || p.mutable {
            continue;
        }
        // The type as the check names it: `Self` for the receiver, else the referent.
        let (ty, checked) = match input {
            syn::FnArg::Receiver(_) => match self_ty {
                Some(t) => (t, quote!(Self)),
                None => continue,
            },
            syn::FnArg::Typed(t) if p.asked => {
                let element = element_type(&t.ty);
                (element, quote!(#element))
            }
            syn::FnArg::Typed(_) => continue,
        };
        let Some(name) = type_name(ty) else {
            continue;
        };
        match left_out_type(func.sig.ident.span(), &name) {
            Some(true) => {
                sig.leave_out(i);
                sig.not_differentiable.push(checked);
            }
            // Differentiable: kept even if no derivative flows from it, as callers
            // (which cannot see the body) expect.
            Some(false) => sig.params[i].asked = false,
            None => {}
        }
    }
}

/// Whether the type named `name` is left out of the derivative by its definition:
/// `Some(true)` for one the crate's source defines without making it Differentiable, or
/// a type of the standard library with no tangent space (`Duration`, a `HashMap`), which
/// the source does not define; `Some(false)` for one it makes Differentiable; `None` when
/// the source does not say.
fn left_out_type(span: proc_macro2::Span, name: &str) -> Option<bool> {
    match crate::source::differentiable_type(span, name) {
        Some(differentiable) => Some(!differentiable),
        None => STD_NOT_DIFFERENTIABLE.contains(&name).then_some(true),
    }
}

/// The type a closure's parameter declared `ty` (`&Config`, `Mode`) is left out of the
/// derivative as, as [`leave_out_by_definition`] leaves out a function's; `None` for
/// any other.
pub(crate) fn not_differentiable(ty: &syn::Type) -> Option<syn::Type> {
    let element = element_type(ty);
    let name = type_name(element)?;
    let span = syn::spanned::Spanned::span(element);
    (left_out_type(span, &name) == Some(true)).then(|| element.clone())
}

/// Types of the standard library with no tangent space, left out of the derivative like
/// the crate's own such types (the companions check that they are not Differentiable).
const STD_NOT_DIFFERENTIABLE: &[&str] = &[
    "Duration",
    "Instant",
    "SystemTime",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "VecDeque",
    "BinaryHeap",
    "Path",
    "PathBuf",
    "File",
    "Ordering",
    "Formatter",
];

/// Whether `name` is one of [`STD_NOT_DIFFERENTIABLE`].
pub(crate) fn is_std_not_differentiable(name: &str) -> bool {
    STD_NOT_DIFFERENTIABLE.contains(&name)
}

/// The trait that `impl Trait for Type` implements, when its definition is in the
/// crate's source ([`crate::source::trait_marks`]) and does not mark `method`
/// `#[differentiable]`: the method's companions cannot be items of the trait's `impl`.
fn unmarked_trait(trait_path: Option<&syn::Path>, method: &syn::Ident) -> Option<syn::Ident> {
    let name = &trait_path?.segments.last()?.ident;
    let marks = crate::source::trait_marks(method.span(), &name.to_string(), &method.to_string());
    (marks == Some(false)).then(|| name.clone())
}

/// Whether `name` is a primitive type's.
pub(crate) fn is_primitive(name: &str) -> bool {
    PRIMITIVES.contains(&name)
}

/// The error for `#[differentiable]` on a method of a trait's `impl` whose trait does not
/// mark the method, naming the two ways out.
fn unmarked_trait_method(written_in: &Enclosing, method: &syn::Ident) -> Option<syn::Error> {
    let Enclosing::Impl(block) = written_in else {
        return None;
    };
    let trait_path = block.trait_.as_ref().map(|(_, p, _)| p);
    let name = unmarked_trait(trait_path, method)?;
    let ty = &block.self_ty;
    Some(syn::Error::new_spanned(
        method,
        format!(
            "`{method}` implements `{name}::{method}`, which `trait {name}` does not mark #[differentiable], so its derivatives cannot be items of this `impl`: mark `fn {method}` in `trait {name}` #[differentiable] too (differentiable through the trait, also as `T: {name}`), or put #[differentiable] on this `impl` block instead (differentiable as a method of `{}`)",
            quote!(#ty)
        ),
    ))
}

/// Marks the signature of a method a trait declares #[differentiable], and of its
/// implementations: an early-bound lifetime `'differentiable`, bounded by itself, which
/// callers never see (they infer it). The trait's declaration and an implementation
/// must agree on it, so an implementation or override written without
/// `#[differentiable]` stops the build at itself (rustc: "lifetime parameters or bounds
/// on method do not match the trait declaration", E0195) instead of keeping derivatives
/// that are not its own (a provided body's).
fn mark_signature(sig: &mut syn::Signature) {
    sig.generics
        .params
        .insert(0, syn::parse_quote!('differentiable));
    sig.generics
        .make_where_clause()
        .predicates
        .push(syn::parse_quote!('differentiable: 'differentiable));
}

/// Whether `ty` is a type no `impl` of this crate may add inherent items to: a primitive,
/// a standard library type, a reference, slice, array or tuple.
fn foreign(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            is_primitive(&name)
                || is_std_not_differentiable(&name)
                || matches!(
                    name.as_str(),
                    "Vec" | "Option" | "String" | "Box" | "Rc" | "Arc"
                )
        }),
        syn::Type::Paren(p) => foreign(&p.elem),
        syn::Type::Group(g) => foreign(&g.elem),
        _ => true,
    }
}

/// The primitive types, whose names a free differentiable function cannot take: its
/// carrier struct, glob-imported with the function's name, would shadow the type.
const PRIMITIVES: &[&str] = &[
    "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
    "usize", "bool", "char", "str",
];

/// Where a function is, as far as the macro knows.
#[derive(Clone, Copy)]
pub(crate) enum Context<'a> {
    /// A free function (or one the macro cannot tell is in an `impl` block).
    Module,
    /// In an `impl` block, with the block's generics when `#[differentiable]` is on it.
    Impl(Option<&'a syn::Generics>),
    /// In a trait, with the trait's generics when `#[differentiable]` is on it.
    Trait(Option<&'a syn::Generics>),
}

impl<'a> Context<'a> {
    /// The generics of the enclosing block, when known.
    fn outer(self) -> Option<&'a syn::Generics> {
        match self {
            Context::Module => None,
            Context::Impl(g) | Context::Trait(g) => g,
        }
    }

    /// Reads the function's signature here, and what its linear maps capture.
    fn read(self, sig: &syn::Signature, args: &DifferentiableArgs) -> syn::Result<FnSig> {
        // A free function has no enclosing generics: every type it names that it does not
        // declare is a type, whatever its name.
        let none = syn::Generics::default();
        let outer = match self {
            Context::Module => Some(&none),
            _ => self.outer(),
        };
        let wrt = args.wrt.as_ref().map(|w| w.0.as_slice());
        // A trait's type parameters without bounds that the method's signature names
        // (`x: K` of `trait Continuous<K, T>`) are its scalars, as those bounded by
        // `Float` are: implementations give them a float type.
        let unbounded = match self {
            Context::Trait(Some(g)) => Some(scalars_of_trait(g, sig)),
            _ => None,
        };
        let outer = unbounded.as_ref().or(outer);
        let mut fn_sig = FnSig::in_context(sig, wrt, outer)?;
        if matches!(self, Context::Trait(_)) {
            fn_sig.trait_scalars = fn_sig.roles.outer.clone();
        }
        fn_sig.detached = matches!(self, Context::Module);
        if fn_sig.detached {
            return Ok(fn_sig);
        }
        fn_sig.bound_self(matches!(self, Context::Trait(_)));
        let params = |g: &syn::Generics| -> Vec<TokenStream> {
            g.params
                .iter()
                .filter_map(|p| match p {
                    syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
                    syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
                    syn::GenericParam::Lifetime(_) => None,
                })
                .collect()
        };
        fn_sig.outer_params = match self {
            Context::Module => None,
            Context::Impl(None) => Some(
                fn_sig
                    .roles
                    .outer
                    .iter()
                    .map(|n| {
                        let id = quote::format_ident!("{}", n);
                        quote!(#id)
                    })
                    .collect(),
            ),
            Context::Impl(Some(g)) => Some(params(g)),
            Context::Trait(g) => {
                let mut ps = vec![quote!(Self)];
                match g {
                    Some(g) => ps.extend(params(g)),
                    None => ps.extend(fn_sig.roles.outer.iter().map(|n| {
                        let id = quote::format_ident!("{}", n);
                        quote!(#id)
                    })),
                }
                Some(ps)
            }
        };
        Ok(fn_sig)
    }
}

/// A trait's generics with its type parameters that have no bounds and that `sig` names
/// bounded by `Real`: the scalars of the method (see [`Context::read`]).
fn scalars_of_trait(generics: &syn::Generics, sig: &syn::Signature) -> syn::Generics {
    let mut g = generics.clone();
    let bounded: Vec<String> = g
        .where_clause
        .iter()
        .flat_map(|w| &w.predicates)
        .filter_map(|p| match p {
            syn::WherePredicate::Type(t) => Some(t.bounded_ty.to_token_stream().to_string()),
            _ => None,
        })
        .collect();
    let written = sig.to_token_stream();
    for p in g.type_params_mut() {
        let name = p.ident.to_string();
        if p.bounds.is_empty()
            && !bounded.contains(&name)
            && crate::parse::types::mentions(&written, &name)
        {
            p.bounds.push(syn::parse_quote!(::diff::Real));
        }
    }
    g
}

/// The structs with a dual twin (`twin.rs`) that the function names: the capitalized
/// names in its signature and body whose definitions the crate's source holds.
fn twins_named(
    func: &syn::ImplItemFn,
    seen: &crate::source::Seen,
) -> Vec<(String, crate::twin::Twin)> {
    let (sig, block) = (&func.sig, &func.block);
    twins_in(quote::quote!(#sig #block), seen)
}

/// The structs with a dual twin that `tokens` name (a closure given to an operator).
pub(crate) fn twins_in(
    tokens: TokenStream,
    seen: &crate::source::Seen,
) -> Vec<(String, crate::twin::Twin)> {
    // Capitalized names, and the structs that functions called by name return
    // (`let p = make(k);`).
    fn names(
        ts: TokenStream,
        seen: &crate::source::Seen,
        out: &mut std::collections::BTreeSet<String>,
    ) {
        let tokens: Vec<proc_macro2::TokenTree> = ts.into_iter().collect();
        for (k, tt) in tokens.iter().enumerate() {
            match tt {
                proc_macro2::TokenTree::Ident(i) => {
                    let t = i.to_string();
                    if t.starts_with(|c: char| c.is_ascii_uppercase()) {
                        out.insert(t);
                    } else if matches!(tokens.get(k + 1), Some(proc_macro2::TokenTree::Group(g))
                        if g.delimiter() == proc_macro2::Delimiter::Parenthesis)
                    {
                        out.extend(seen.returned_type("", &t));
                    }
                }
                proc_macro2::TokenTree::Group(g) => names(g.stream(), seen, out),
                _ => {}
            }
        }
    }
    let mut found = std::collections::BTreeSet::new();
    names(tokens, seen, &mut found);
    // And the structs the fields of those hold, twins or not (`ray.origin` of a plain
    // `Ray` holding a `Vec3` with operators of its own).
    let mut queue: Vec<String> = found.iter().cloned().collect();
    while let Some(n) = queue.pop() {
        for (_, ty) in seen.struct_fields(&n).unwrap_or_default() {
            let mut inner = std::collections::BTreeSet::new();
            names(quote::quote!(#ty), seen, &mut inner);
            for i in inner {
                if found.insert(i.clone()) {
                    queue.push(i);
                }
            }
        }
    }
    let named = found
        .into_iter()
        .filter_map(|n| Some((n.clone(), seen.twin(&n)?)))
        .collect();
    with_nested(named, seen)
}

/// `twins` with the structs nested in them (`p.pos` of a `pos: Vec2`, the elements of
/// `layers: Vec<Layer>`), whether the function names them or not.
pub(crate) fn with_nested(
    mut twins: Vec<(String, crate::twin::Twin)>,
    seen: &crate::source::Seen,
) -> Vec<(String, crate::twin::Twin)> {
    let mut k = 0;
    while k < twins.len() {
        let t = &twins[k].1;
        let inners: Vec<String> = t
            .nested
            .iter()
            .chain(&t.nested_elements)
            .map(|(_, inner)| inner.clone())
            .collect();
        for inner in inners {
            if !twins.iter().any(|(n, _)| *n == inner) {
                if let Some(t) = seen.nested_twin(&inner) {
                    twins.push((inner, t));
                }
            }
        }
        k += 1;
    }
    twins
}

/// What an `impl Trait` parameter type is named in the companions: a type parameter
/// (a companion's `use<..>` must name every type it captures, and `impl Trait` in an
/// argument has no name).
pub(crate) const IMPL_PARAM: &str = "__DiffImpl";

/// `func` with each `impl Trait` in its parameters' types (`g: impl Fn(f64) -> f64`)
/// as a type parameter of its own (`g: __DiffImpl0` with `__DiffImpl0: Fn(f64) -> f64`),
/// for the companions; `None` when it has none.
fn impl_trait_params_named(func: &syn::ImplItemFn) -> Option<syn::ImplItemFn> {
    struct Name {
        made: Vec<syn::TypeParam>,
    }
    impl syn::visit_mut::VisitMut for Name {
        fn visit_type_mut(&mut self, t: &mut syn::Type) {
            syn::visit_mut::visit_type_mut(self, t);
            if let syn::Type::ImplTrait(it) = t {
                let ident = syn::Ident::new(
                    &format!("{IMPL_PARAM}{}", self.made.len()),
                    proc_macro2::Span::call_site(),
                );
                self.made.push(syn::TypeParam {
                    attrs: Vec::new(),
                    ident: ident.clone(),
                    colon_token: Some(Default::default()),
                    bounds: it.bounds.clone(),
                    eq_token: None,
                    default: None,
                });
                *t = syn::Type::Path(syn::TypePath {
                    qself: None,
                    path: ident.into(),
                });
            }
        }
    }
    let mut name = Name { made: Vec::new() };
    let mut f = func.clone();
    for input in &mut f.sig.inputs {
        if let syn::FnArg::Typed(p) = input {
            syn::visit_mut::VisitMut::visit_type_mut(&mut name, &mut p.ty);
        }
    }
    if name.made.is_empty() {
        return None;
    }
    f.sig
        .generics
        .params
        .extend(name.made.into_iter().map(syn::GenericParam::Type));
    Some(f)
}

/// The companions, or, after an error, their stand-ins; `None` when even the signature
/// cannot be read.
pub(crate) fn companions(
    args: TokenStream,
    func: &syn::ImplItemFn,
    context: Context<'_>,
    self_ty: Option<Owner<'_>>,
    errors: &mut Errors,
) -> Option<TokenStream> {
    let named = impl_trait_params_named(func);
    let func = named.as_ref().unwrap_or(func);
    let args = errors.take(DifferentiableArgs::parse(args))?;
    let free = matches!(context, Context::Module);
    let mut sig = errors.take(context.read(&func.sig, &args))?;
    if args.wrt.is_none() {
        let undeclared = self_ty.filter(|o| !o.declared_by_trait).map(|o| o.ty);
        leave_out_by_definition(&mut sig, func, undeclared);
    }
    // The source around the function, read once for the questions below.
    let seen = crate::source::seen(&func.sig.ident);
    let receiver = sig.has_receiver();
    let self_name = self_ty.and_then(|o| type_name(o.ty));
    sig.float_self = receiver
        && self_name
            .as_deref()
            .is_some_and(|n| n == "f64" || n == "f32");
    let types: Vec<Option<String>> = (0..sig.params.len())
        .map(|i| match (i, receiver) {
            (0, true) => self_name.clone(),
            _ => sig.declared_type(i).as_ref().and_then(type_name),
        })
        .collect();
    sig.param_fields = types
        .into_iter()
        .map(|name| {
            name.zip(seen.as_ref())
                .and_then(|(n, seen)| seen.struct_fields(&n))
                .unwrap_or_default()
        })
        .collect();
    // A trait declares its methods' companions without twins; its implementations agree.
    // The companions of a method no trait declares go to an inherent `impl`.
    let inherent = self_ty.filter(|o| !o.declared_by_trait);
    let in_trait =
        matches!(context, Context::Trait(_)) || (self_ty.is_some() && inherent.is_none());
    if in_trait {
        sig.trait_scalars = sig.roles.outer.clone();
    }
    // (No source to read, a `macro_rules!` expansion: no twins.)
    if let Some(seen) = &seen {
        if !in_trait {
            sig.twins = twins_named(func, seen);
        }
        if let Some(name) = inherent.and_then(|o| type_name(o.ty)) {
            if let Some(t) = seen.twin(&name) {
                if !sig.twins.iter().any(|(n, _)| *n == name) {
                    sig.twins.push((name.clone(), t));
                }
                sig.self_twin = Some(name);
            }
        }
        sig.twins = with_nested(std::mem::take(&mut sig.twins), seen);
        sig.generic_structs = seen.generic_structs();
        sig.dual_generic_structs = seen.dual_generic_structs();
    }
    if let Some(a) = &func.sig.asyncness {
        errors.push(syn::Error::new_spanned(
            a,
            "an `async fn` cannot be #[differentiable]",
        ));
        return None;
    }
    let output_tangent = errors.take(sig.output_tangent(func.sig.output.span()))?;
    let name = func.sig.ident.to_string();
    let trait_methods = seen.as_ref().map(|s| s.trait_methods()).unwrap_or_default();
    let mut body = Body::of(&sig, &func.block);
    if let Some(seen) = &seen {
        let declared: Vec<Option<syn::Type>> = (0..sig.params.len())
            .map(|i| sig.declared_type(i))
            .collect();
        body.struct_operands(seen, &sig.param_fields, &declared, self_name.as_deref());
        body.trait_methods = trait_methods.clone();
    }
    let analyzed = pipeline::analyze(&name, body, errors);
    // Parameters of types the macro cannot classify, through which no derivative flows
    // (an enum, a configuration), are left out.
    for i in analyzed.iter().flat_map(|a| &a.left_out) {
        sig.leave_out(*i);
    }
    // A trait's method (and a method sharing the name of one, which callers cannot tell
    // apart) has companions taking its receiver as a constant too, which callers use on
    // a receiver carrying no derivative: the implementations of a type that is not
    // Differentiable have only those.
    let constant_sig = (in_trait || trait_methods.contains(&name))
        .then(|| sig.with_constant_receiver())
        .flatten();
    let only_constant = constant_sig.is_some()
        && sig.params[0].tangent.is_some()
        && self_ty.is_some_and(|o| {
            o.declared_by_trait
                && type_name(o.ty).is_some_and(|n| {
                    crate::source::differentiable_type(func.sig.ident.span(), &n) == Some(false)
                })
        });
    let Some(analyzed) = analyzed else {
        let mut items = TokenStream::new();
        if !only_constant {
            items.extend(Companions::stand_ins(&sig, &func.vis, &output_tangent));
        }
        if let Some(c) = &constant_sig {
            items.extend(Companions::stand_ins(c, &func.vis, &output_tangent));
        }
        let needs = Needs::default();
        return Some(place(func, &sig, &output_tangent, items, needs));
    };
    // A function calling itself boxes that call's linear map (`Box<dyn ..>`, which is
    // `'static` for a free function): its type parameters must be `'static` too.
    let own = sig.ident.to_string();
    let recursive = calls(&analyzed.func).any(|(c, args)| {
        crate::emit::primal::is_call_of(
            &analyzed.func,
            c,
            args,
            &own,
            sig.has_receiver(),
            sig.float_self,
        )
    });
    // A function called back by one it calls (mutual recursion) boxes the linear maps it
    // returns (`Recursion::mutual`).
    let mutual = calls(&analyzed.func).any(|(c, _)| {
        let name = match c {
            crate::ir::Callee::Path(p) => p.path.segments.last().map(|s| &s.ident),
            crate::ir::Callee::Method { method, .. } => Some(method),
            _ => None,
        };
        name.is_some_and(|name| {
            *name != own && crate::source::reaches(name.span(), &name.to_string(), &own)
        })
    });
    let recursive = recursive || mutual;
    sig.recursive = recursive;
    sig.mutual = mutual;
    if recursive && sig.detached {
        let tys: Vec<syn::Ident> = sig
            .generics
            .type_params()
            .map(|t| t.ident.clone())
            .collect();
        for t in tys {
            sig.generics
                .make_where_clause()
                .predicates
                .push(syn::parse_quote!(#t: 'static));
        }
    }
    let companions = Companions {
        sig: &sig,
        vis: &func.vis,
        func: &analyzed.func,
        act: &analyzed.act,
        maps: &analyzed.maps,
        items: &analyzed.items,
    };
    let mut items = if only_constant {
        TokenStream::new()
    } else {
        companions.emit(&output_tangent)
    };
    let local = crate::requirements::local_names(&analyzed.items);
    let needs = Needs {
        callees: crate::requirements::callees(
            &analyzed.func,
            &analyzed.act,
            Some(&func.sig.ident),
            &local,
        ),
        registered_methods: crate::requirements::registered_methods(&analyzed.func, &analyzed.act),
    };
    if let Some(mut c) = constant_sig {
        // The same body, with the receiver left out of what is differentiated.
        c.recursive = recursive;
        c.mutual = mutual;
        let (act, maps) = analyzed.with_respect_to(&c.wrt());
        let constant = Companions {
            sig: &c,
            vis: &func.vis,
            func: &analyzed.func,
            act: &act,
            maps: &maps,
            items: &analyzed.items,
        };
        items.extend(constant.emit(&output_tangent));
    }
    // Where no trait declares the companions, a method on a struct with a dual twin has
    // one more, taking the twin (`twin.rs`): the source reader tells callers it exists.
    if inherent.is_some() && func.sig.receiver().is_some_and(crate::twin::takes_twin) {
        items.extend(companions.twin_receiver(&output_tangent));
    }
    // A trait declares that companion of the methods it marks (stopping); the
    // implementation for a struct with a twin defines it, taking only the twin of its
    // own struct (as the trait declares it).
    if matches!(context, Context::Trait(_)) {
        items.extend(twin_receiver_declared(
            &sig,
            &func.sig,
            context,
            &func.vis,
            &output_tangent,
            true,
        ));
    }
    let trait_twin = self_ty
        .filter(|o| o.declared_by_trait)
        .filter(|o| {
            let self_left_out = !sig.wrt().contains(&0);
            crate::twin::trait_twin_receiver(&func.sig, self_left_out, o.trait_generic).is_some()
        })
        .and_then(|o| type_name(o.ty))
        .and_then(|name| Some((seen.as_ref()?.twin(&name)?, name)));
    if let Some((twin, name)) = trait_twin {
        let mut own = sig.clone();
        own.twins = vec![(name.clone(), twin)];
        own.self_twin = Some(name);
        let c = Companions {
            sig: &own,
            ..companions
        };
        items.extend(c.twin_receiver(&output_tangent));
    }
    // (Only beside free functions: a trait's `impl` may hold only the trait's items.)
    let allowed = func.attrs.iter().any(|a| {
        a.path().is_ident("allow") && a.meta.to_token_stream().to_string().contains("deprecated")
    });
    if free && !allowed {
        items.extend(crate::warnings::emit(
            &sig,
            &analyzed.func,
            args.wrt.is_some(),
            &func.sig.ident,
        ));
    }
    Some(place(func, &sig, &output_tangent, items, needs))
}

/// What a free function's derivatives need (`requirements.rs`): what the functions it
/// calls with a derivative need, named by their carriers. (Where the function's own
/// second order is missing, a construct that `lifting.rs` does not take, its dual
/// companion stops at run time, saying why.)
#[derive(Default)]
struct Needs {
    callees: Vec<syn::Path>,
    /// The methods called with a derivative whose derivative is only registered
    /// (`#[derivative(of = f64::error)]`, first order only): second order of the function
    /// is then a compile error at the operator naming them.
    registered_methods: Vec<syn::Ident>,
}

/// Puts the companion items where the function's callers find them (the lookup rule of
/// [`crate::emit::names::companion_path`]):
/// - beside a method, in its `impl`;
/// - for a free function `f`, as associated functions of its *carrier*: an empty struct
///   also named `f`, which lives in the type namespace, so wherever Rust brings the name
///   `f` (a `use` by name or by glob, a re-export) the carrier comes with it. The carrier
///   and the `m::__vjp_f` siblings are defined in a hidden module and glob-imported, so
///   that a registered derivative for `f` in the same module (items of the same names)
///   shadows them and takes precedence over differentiating the body. The companions'
///   bodies are in an `impl` beside the function, where they see what the function sees
///   (items local to a function body, or from a `macro_rules!` expansion).
fn place(
    func: &syn::ImplItemFn,
    sig: &FnSig,
    output_tangent: &TokenStream,
    items: TokenStream,
    needs: Needs,
) -> TokenStream {
    let signatures = Signatures::of(sig, &func.vis);
    if signatures.in_impl {
        return items;
    }
    // A private function is called by path only as `self::f`, `super::f` or `crate::f`,
    // which name its carrier; only the others are called as `m::f` (and a function
    // defined in another function's body, whose types the hidden module cannot see, is
    // private).
    let siblings = match func.vis {
        syn::Visibility::Inherited => TokenStream::new(),
        _ => signatures.siblings(output_tangent),
    };
    let name = &func.sig.ident;
    let m = quote::format_ident!("__diff_{}", name);
    let vis = &func.vis;
    // In a module of its own name (`mod loss;` holding `pub fn loss`), which shadows the
    // carrier where the module is glob re-exported (`pub use loss::*;`): the companions
    // are found through the module too, and the carrier is visible in that module only,
    // so that rustc does not warn that the module hides a public re-export, and a
    // re-export by name (`pub use loss::{loss, ..};`) brings the function alone, not a
    // type named like the module beside it.
    let own_module = !matches!(func.vis, syn::Visibility::Inherited)
        && crate::source::own_module(name.span()).is_some_and(|m| *name == m);
    // There a public carrier under another name holds the companions, found from
    // anywhere by its key (diff-core `Key`: `names::companion_expr`), and the carrier
    // named like the function is an alias of it.
    let (carrier_def, forwarders, keyed) = if own_module {
        let keyed = quote::format_ident!("__diff_carrier_{}", syn::ext::IdentExt::unraw(name));
        let krate = std::env::var("CARGO_CRATE_NAME").unwrap_or_default();
        let key = proc_macro2::Literal::u64_unsuffixed(crate::emit::names::carrier_key(
            &krate,
            &syn::ext::IdentExt::unraw(name).to_string(),
        ));
        (
            quote! {
                /// The carrier of the companions of the function of the same name.
                pub struct #keyed {}
                pub(super) type #name = #keyed;
            },
            signatures.module_forwarders(output_tangent),
            quote! {
                impl ::diff::__private::Carrier<#m::#keyed> for ::diff::__private::Key<#key> {
                    type Target = #m::#keyed;
                }
            },
        )
    } else {
        (
            quote! {
                /// The carrier of the companions of the function of the same name.
                pub struct #name {}
            },
            TokenStream::new(),
            TokenStream::new(),
        )
    };
    let carrier = quote!(#m::#name);
    let mut needed = [Need::Reverse, Need::Forward, Need::Second]
        .map(|need| crate::requirements::all_of(&needs.callees, need));
    let (second, missing) =
        crate::requirements::registered_only_methods(&m, &needs.registered_methods, &needed[2]);
    needed[2] = second;
    let requirements = crate::requirements::implementation(&carrier, needed);
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, non_camel_case_types, dead_code)]
        mod #m {
            #[allow(unused_imports)]
            use super::*;
            #carrier_def
            #siblings
            #forwarders
            #missing
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #m::*;
        impl #carrier {
            #items
        }
        #keyed
        #requirements
    }
}

/// A function of a block marked as a whole that the macro left as it is.
struct Skipped {
    name: syn::Ident,
    /// Why it cannot be differentiated.
    why: Errors,
    /// Its stand-ins, and whether they go in an inherent `impl` (of a trait's method the
    /// trait does not mark).
    stand_ins: Option<(bool, TokenStream)>,
}

/// `#[differentiable]` on an `impl` block: the functions in it marked `#[differentiable]`
/// are associated functions, whether or not they take `self` or name `Self`, and the
/// block's generics are known, so their companions are associated functions added to the
/// block, capturing exactly the block's type parameters. In a trait impl they implement
/// the companions the trait declares (its methods are marked `#[differentiable]` too).
fn expand_impl(args: TokenStream, mut block: syn::ItemImpl) -> TokenStream {
    let mut errors = Errors::default();
    if !args.is_empty() {
        errors.push(syn::Error::new_spanned(
            &args,
            "#[differentiable] on an `impl` block takes no arguments; give `wrt = (..)` on the functions in it",
        ));
    }
    let mut companions = TokenStream::new();
    // Those of methods implementing a trait that does not mark them: an inherent `impl`.
    let mut inherent = TokenStream::new();
    let mut marked = 0;
    // The functions left as they are for want of a derivative.
    let mut skipped: Vec<Skipped> = Vec::new();
    let generics = block.generics.clone();
    let trait_path = block.trait_.as_ref().map(|(_, p, _)| p.clone());
    let of_trait = trait_path.is_some();
    let self_ty = (*block.self_ty).clone();
    // The block without its functions (its `type Output` stays, for the operators).
    let block_head = syn::ItemImpl {
        items: block
            .items
            .iter()
            .filter(|i| matches!(i, syn::ImplItem::Type(_)))
            .cloned()
            .collect(),
        ..block.clone()
    };
    // The derivatives of operators' implementations (`operator_items`).
    let mut operators = TokenStream::new();
    // With no function marked, each whose result can carry a derivative is, unless the
    // macro cannot differentiate it: it is then left as it is, without an error.
    let marks_none = !block.items.iter().any(|i| match i {
        syn::ImplItem::Fn(f) => {
            f.attrs.iter().any(is_differentiable_attr)
                || implements_operator(trait_path.as_ref(), &f.sig.ident)
                || implements_assignment(trait_path.as_ref(), &f.sig.ident)
        }
        _ => false,
    });
    for item in &mut block.items {
        let syn::ImplItem::Fn(func) = item else {
            continue;
        };
        let implicit = marks_none && may_carry_derivative(func, &self_ty, &generics);
        if implicit {
            func.attrs.push(syn::parse_quote!(#[differentiable]));
        }
        if implements_assignment(trait_path.as_ref(), &func.sig.ident) {
            func.attrs.retain(|a| !is_differentiable_attr(a));
            marked += 1;
            continue;
        }
        let operator = implements_operator(trait_path.as_ref(), &func.sig.ident);
        let args = if operator && !func.attrs.iter().any(is_differentiable_attr) {
            marked += 1;
            TokenStream::new()
        } else {
            let Some(args) = take_mark(&mut func.attrs, &mut marked, &mut errors) else {
                continue;
            };
            args
        };
        let context = Context::Impl(Some(&generics));
        let unmarked = unmarked_trait(trait_path.as_ref(), &func.sig.ident).is_some();
        // A receiver may be left out where no trait declares the companions.
        let owner = Some(Owner {
            ty: &self_ty,
            declared_by_trait: of_trait && !unmarked,
            trait_generic: trait_generic(&block_head),
        });
        if operator {
            operators.extend(operator_items(args, func, &block_head, &mut errors));
            continue;
        }
        if unmarked && foreign(&self_ty) {
            // No inherent `impl` of a type of another crate can hold the companions.
            let name = unmarked_trait(trait_path.as_ref(), &func.sig.ident)
                .map(|n| n.to_string())
                .unwrap_or_default();
            let method = &func.sig.ident;
            errors.push(syn::Error::new_spanned(
                method,
                format!("`{method}` implements `{name}::{method}` for `{}`, a type of another crate, which cannot hold the derivatives as items of its own: mark `fn {method}` in `trait {name}` #[differentiable] too", quote!(#self_ty)),
            ));
            continue;
        }
        let mut own_errors = Errors::default();
        // (In an inherent `impl`, public as the trait's method is wherever the trait is.)
        let public;
        let func_as_inherent = if unmarked {
            let mut f = func.clone();
            f.vis = syn::parse_quote!(pub);
            public = f;
            &public
        } else {
            &*func
        };
        let c = self::companions(args, func_as_inherent, context, owner, &mut own_errors);
        if implicit && !own_errors.is_empty() {
            marked -= 1;
            skipped.push(Skipped {
                name: func.sig.ident.clone(),
                why: own_errors,
                stand_ins: c.map(|c| (unmarked, c)),
            });
            continue;
        }
        errors.append(own_errors);
        if let Some(c) = c {
            if unmarked {
                inherent.extend(c);
            } else {
                companions.extend(c);
            }
        }
        if of_trait && !unmarked {
            mark_signature(&mut func.sig);
        }
    }
    let mut left_as_they_are = TokenStream::new();
    if marked == 0 && !skipped.is_empty() {
        // Every function the block would differentiate has a body it cannot: the reasons,
        // and the stand-ins, which keep callers from more errors.
        for f in skipped {
            errors.append(f.why);
            match f.stand_ins {
                Some((true, c)) => inherent.extend(c),
                Some((false, c)) => companions.extend(c),
                None => {}
            }
        }
    } else if marked == 0 {
        errors.push(syn::Error::new_spanned(
            &block.self_ty,
            "#[differentiable] on an `impl` block differentiates the functions in it marked #[differentiable], or with none marked every one returning a value that can carry a derivative (a float, a Differentiable type, a Vec, array or tuple of them) or changing one through `&mut`, and none here does; mark the ones to differentiate",
        ));
    } else {
        // Others are differentiated: a function left as it is is warned of where another
        // function calls it (its derivative is missed there).
        for f in &skipped {
            if crate::source::is_called(f.name.span(), &f.name.to_string()) {
                left_as_they_are.extend(crate::warnings::left_as_it_is(&f.name, &f.why));
            }
        }
    }
    block.items.push(syn::ImplItem::Verbatim(companions));
    let inherent = (!inherent.is_empty()).then(|| {
        let (params, _, where_clause) = block.generics.split_for_impl();
        let ty = &block.self_ty;
        quote! { impl #params #ty #where_clause { #inherent } }
    });
    let errors = errors.to_compile_errors();
    let out = quote! { #block #inherent #operators #left_as_they_are #errors };
    crate::debug::dump(&out);
    out
}

/// Whether `func`, in an `impl` of `self_ty` with `generics`, takes something and returns
/// a value that can carry a derivative, so that `#[differentiable]` on an `impl` block
/// marking none of its functions differentiates it (or returns nothing and changes such a
/// value through `&mut`).
fn may_carry_derivative(
    func: &syn::ImplItemFn,
    self_ty: &syn::Type,
    generics: &syn::Generics,
) -> bool {
    let span = func.sig.ident.span();
    let self_name = type_name(self_ty);
    let differentiable = |name: &str| crate::source::differentiable_type(span, name) == Some(true);
    implicitly_marked(&func.sig, generics, &|name| match name {
        "Self" => self_name.as_deref().is_some_and(differentiable),
        _ => differentiable(name),
    })
}

/// Whether a function of signature `sig` in a marked `impl` block with `generics` that
/// marks none of its functions is differentiated: it takes something and returns a float,
/// a type parameter, a type `own` says is Differentiable (named as written, `Self`
/// included), or a `Vec`, array or tuple of those; or it returns nothing and takes such a
/// value (or a slice of them) by `&mut`, `&mut self` included.
pub(crate) fn implicitly_marked(
    sig: &syn::Signature,
    generics: &syn::Generics,
    own: &dyn Fn(&str) -> bool,
) -> bool {
    let params: Vec<String> = generics
        .type_params()
        .chain(sig.generics.type_params())
        .map(|t| t.ident.to_string())
        .collect();
    fn carries(ty: &syn::Type, params: &[String], own: &dyn Fn(&str) -> bool) -> bool {
        match ty {
            syn::Type::Paren(p) => carries(&p.elem, params, own),
            syn::Type::Array(a) => carries(&a.elem, params, own),
            syn::Type::Slice(a) => carries(&a.elem, params, own),
            syn::Type::Tuple(t) => {
                !t.elems.is_empty() && t.elems.iter().all(|e| carries(e, params, own))
            }
            syn::Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return false;
                };
                let name = last.ident.to_string();
                match &last.arguments {
                    syn::PathArguments::AngleBracketed(a) if name == "Vec" => {
                        matches!(a.args.first(), Some(syn::GenericArgument::Type(t)) if carries(t, params, own))
                    }
                    syn::PathArguments::None if is_primitive(&name) => {
                        matches!(name.as_str(), "f64" | "f32")
                    }
                    syn::PathArguments::None => params.contains(&name) || own(&name),
                    _ => own(&name),
                }
            }
            _ => false,
        }
    }
    let unit = |t: &syn::Type| matches!(t, syn::Type::Tuple(t) if t.elems.is_empty());
    let returns = match &sig.output {
        syn::ReturnType::Type(_, out) => carries(out, &params, own),
        syn::ReturnType::Default => false,
    };
    // A function returning nothing that changes a value through `&mut` (`fn step(&mut
    // self, dt: f64)`): what it changes is its result.
    let changes = |a: &syn::FnArg| match a {
        syn::FnArg::Receiver(r) => r.reference.is_some() && r.mutability.is_some() && own("Self"),
        syn::FnArg::Typed(t) => matches!(&*t.ty,
            syn::Type::Reference(r) if r.mutability.is_some() && carries(&r.elem, &params, own)),
    };
    let returns_nothing = match &sig.output {
        syn::ReturnType::Default => true,
        syn::ReturnType::Type(_, out) => unit(out),
    };
    let mutates = returns_nothing && sig.inputs.iter().any(changes);
    sig.asyncness.is_none() && !sig.inputs.is_empty() && (returns || mutates)
}

/// Whether a trait marked `#[differentiable]` differentiates its method `sig`: the
/// method is marked, or the trait marks none of its methods and this one takes something
/// and returns a float, a type parameter, a type of the user's (not `Self`, `String` or a
/// standard type without a derivative), or a `Vec`, array or tuple of those
/// (`implicitly_marked`). The source reader asks the same of every trait it reads.
pub(crate) fn trait_differentiates(block: &syn::ItemTrait, func: &syn::TraitItemFn) -> bool {
    func.attrs.iter().any(is_differentiable_attr)
        || (block.attrs.iter().any(is_differentiable_attr) && marked_implicitly(block, func))
}

/// In a trait marked `#[differentiable]` (`block`, whose own attribute the macro expanding
/// it no longer sees): whether `func` is differentiated though not marked itself, the
/// trait marking none of its methods ([`trait_differentiates`]).
fn marked_implicitly(block: &syn::ItemTrait, func: &syn::TraitItemFn) -> bool {
    let marks_none = !block
        .items
        .iter()
        .any(|i| matches!(i, syn::TraitItem::Fn(f) if f.attrs.iter().any(is_differentiable_attr)));
    let users = |name: &str| !matches!(name, "Self" | "String") && !is_std_not_differentiable(name);
    marks_none && implicitly_marked(&func.sig, &block.generics, &users)
}

/// Takes the `#[differentiable]` mark off a function in a marked block, counting it:
/// its arguments, or `None` when it has none or it is malformed (reported).
fn take_mark(
    attrs: &mut Vec<syn::Attribute>,
    marked: &mut usize,
    errors: &mut Errors,
) -> Option<TokenStream> {
    let at = attrs.iter().position(is_differentiable_attr)?;
    *marked += 1;
    match attrs.remove(at).meta {
        syn::Meta::Path(_) => Some(TokenStream::new()),
        syn::Meta::List(list) => Some(list.tokens),
        syn::Meta::NameValue(nv) => {
            errors.push(syn::Error::new_spanned(
                nv,
                "write `#[differentiable]` or `#[differentiable(wrt = (..))]`",
            ));
            None
        }
    }
}

/// The companions a method declared in a trait (without a body) declares, or `None`
/// when its signature cannot be read (reported).
fn declarations(
    args: TokenStream,
    sig: &syn::Signature,
    context: Context<'_>,
    errors: &mut Errors,
) -> Option<TokenStream> {
    let args = errors.take(DifferentiableArgs::parse(args))?;
    let fn_sig = errors.take(context.read(sig, &args))?;
    let output_tangent = errors.take(fn_sig.output_tangent(sig.output.span()))?;
    let vis = syn::Visibility::Inherited;
    let mut items = Signatures::of(&fn_sig, &vis).declarations(&output_tangent);
    items.extend(twin_receiver_declared(
        &fn_sig,
        sig,
        context,
        &vis,
        &output_tangent,
        false,
    ));
    if let Some(constant) = fn_sig.with_constant_receiver() {
        items.extend(Signatures::of(&constant, &vis).declarations(&output_tangent));
    }
    Some(items)
}

/// The companion taking the receiver as its struct's twin that a trait declares for its
/// method `sig` (read as `fn_sig`), when `twin::trait_twin_receiver` gives it one: the
/// implementations for structs with a twin define it; this default stops.
fn twin_receiver_declared(
    fn_sig: &FnSig,
    sig: &syn::Signature,
    context: Context<'_>,
    vis: &syn::Visibility,
    output_tangent: &TokenStream,
    provided: bool,
) -> TokenStream {
    let generic = !fn_sig.trait_scalars.is_empty() || context.outer().is_some_and(has_type_params);
    match crate::twin::trait_twin_receiver(sig, !fn_sig.wrt().contains(&0), generic) {
        Some(scalar) => {
            Signatures::of(fn_sig, vis).twin_receiver_declaration(output_tangent, scalar, provided)
        }
        None => TokenStream::new(),
    }
}

/// `#[differentiable]` on a trait: the methods in it marked `#[differentiable]`, declared
/// or provided, get their companions in the trait, as the attribute on each would give.
fn expand_trait(args: TokenStream, mut block: syn::ItemTrait) -> TokenStream {
    let mut errors = Errors::default();
    if !args.is_empty() {
        errors.push(syn::Error::new_spanned(
            &args,
            "#[differentiable] on a trait takes no arguments; give `wrt = (..)` on the methods in it",
        ));
    }
    let mut companions = TokenStream::new();
    let mut marked = 0;
    let generics = block.generics.clone();
    let implicit: Vec<syn::Ident> = block
        .items
        .iter()
        .filter_map(|i| match i {
            syn::TraitItem::Fn(f) if marked_implicitly(&block, f) => Some(f.sig.ident.clone()),
            _ => None,
        })
        .collect();
    for item in &mut block.items {
        let syn::TraitItem::Fn(func) = item else {
            continue;
        };
        if implicit.contains(&func.sig.ident) {
            func.attrs.push(syn::parse_quote!(#[differentiable]));
        }
        let Some(args) = take_mark(&mut func.attrs, &mut marked, &mut errors) else {
            continue;
        };
        let made = match &func.default {
            None => declarations(
                args,
                &func.sig,
                Context::Trait(Some(&generics)),
                &mut errors,
            ),
            Some(body) => {
                let provided = syn::ImplItemFn {
                    attrs: func.attrs.clone(),
                    vis: syn::Visibility::Inherited,
                    defaultness: None,
                    sig: func.sig.clone(),
                    block: body.clone(),
                };
                let context = Context::Trait(Some(&generics));
                self::companions(args, &provided, context, None, &mut errors)
            }
        };
        mark_signature(&mut func.sig);
        companions.extend(made);
    }
    if marked == 0 {
        errors.push(syn::Error::new_spanned(
            &block.ident,
            "#[differentiable] on a trait differentiates the methods in it marked #[differentiable], or with none marked every one returning a value that can carry a derivative (a float, a type of the crate's, a Vec, array or tuple of them) or changing one through `&mut`, and none here does; mark the ones to differentiate",
        ));
    }
    block.items.push(syn::TraitItem::Verbatim(companions));
    let errors = errors.to_compile_errors();
    let out = quote! { #block #errors };
    crate::debug::dump(&out);
    out
}

/// Whether an attribute is `#[differentiable]` (or `#[diff::differentiable]`, ..).
fn is_differentiable_attr(attr: &syn::Attribute) -> bool {
    crate::parse::attr::ends_with(attr.path(), "differentiable")
}

/// Whether `func` is certainly an associated function in an `impl` block: it has a
/// receiver or names the type `Self` (a free function cannot). A lowercase `self` without
/// a receiver is the module path `self::g`, which free functions use too. Such companions
/// are emitted as associated functions.
fn looks_like_method(func: &syn::ImplItemFn) -> bool {
    let mentions_self = |ts: proc_macro2::TokenStream| crate::parse::types::mentions(&ts, "Self");
    // Items nested in the body (a local `impl` naming its own `Self`) do not count.
    let statements = func
        .block
        .stmts
        .iter()
        .filter(|s| !matches!(s, syn::Stmt::Item(_)));
    func.sig.receiver().is_some()
        || mentions_self(func.sig.to_token_stream())
        || statements
            .into_iter()
            .any(|s| mentions_self(s.to_token_stream()))
}
/// The calls of `func`'s body: each callee with its arguments.
fn calls(
    func: &crate::ir::Function,
) -> impl Iterator<Item = (&crate::ir::Callee, &[crate::ir::Value])> {
    func.regions
        .iter()
        .flat_map(|r| r.stmts.iter())
        .filter_map(|s| match &s.inst {
            crate::ir::Inst::Call(c, args) | crate::ir::Inst::CallMut(c, args, _) => {
                Some((c, args.as_slice()))
            }
            _ => None,
        })
}
