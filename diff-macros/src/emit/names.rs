//! Names of generated locals and items.
//!
//! Generated locals are `Span::call_site` identifiers, not hygienic ones: what keeps them
//! apart from the user's names is that the body is re-emitted with every user variable
//! renamed (a value's local is its name plus its number, `x_3`), and user expressions
//! kept verbatim read values only through placeholders substituted at emission. So a
//! generated name can neither capture nor shadow a name of the user's code.
use crate::ir::{Function, RegionId, Value};
use proc_macro2::{Ident, Span, TokenStream};
use syn::ext::IdentExt;

/// Which derivative a companion computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Reverse mode: value and pullback.
    Vjp,
    /// Forward mode: value and differential.
    Jvp,
}

/// A generated identifier (see the module docs for why `call_site` is safe).
pub fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

fn base(func: &Function, v: Value) -> String {
    match func.value(v).name.as_deref() {
        Some("self") => format!("this_{}", v.0),
        Some(n) => {
            let clean: String = n
                .trim_start_matches("r#")
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let clean = if clean.is_empty() || clean.starts_with(|c: char| c.is_ascii_digit()) {
                format!("v{clean}")
            } else {
                clean
            };
            format!("{clean}_{}", v.0)
        }
        None => format!("t_{}", v.0),
    }
}

/// The primal value.
pub fn value(func: &Function, v: Value) -> Ident {
    ident(&base(func, v))
}

/// The adjoint slot (reverse mode). A shared borrow `&a` has `a`'s: its adjoint is the
/// referent's, so what flows to it is added to `a`'s slot directly (a loop reading
/// `&xs[..]` adds into the whole's adjoint, not into a copy made each iteration).
pub fn adjoint(func: &Function, v: Value) -> Ident {
    ident(&format!("a_{}", base(func, adjoint_root(func, v))))
}

/// The value whose adjoint slot `v` uses: `v` itself, or the referent of a shared
/// borrow (through borrows of borrows).
pub fn adjoint_root(func: &Function, mut v: Value) -> Value {
    while let Some(crate::ir::Inst::Ref(a, crate::ir::Borrow::Shared)) = func.def_inst(v) {
        v = *a;
    }
    v
}

/// The tangent (forward mode).
pub fn tangent(func: &Function, v: Value) -> Ident {
    ident(&format!("d_{}", base(func, v)))
}

/// The saved tangent-type marker of a value.
pub fn marker(func: &Function, v: Value) -> Ident {
    ident(&format!("marker_{}", base(func, v)))
}

/// The dual companion of method `m` taking its receiver as the struct's dual twin
/// (`twin.rs`): `__vjp_dual_self_m`.
pub fn twin_receiver(m: &Ident) -> Ident {
    ident(&format!("__vjp_dual_self_{}", m.unraw()))
}

/// The saved shape of a value.
pub fn shape(func: &Function, v: Value) -> Ident {
    ident(&format!("shape_{}", base(func, v)))
}

/// The callee's pullback or differential for the call defining `v`.
pub fn handle(func: &Function, v: Value, mode: Mode) -> Ident {
    match mode {
        Mode::Vjp => ident(&format!("pb_{}", base(func, v))),
        Mode::Jvp => ident(&format!("df_{}", base(func, v))),
    }
}

/// The predecessor value of the `if` whose then-region is `r`.
pub fn pred(r: RegionId) -> Ident {
    ident(&format!("pred_{}", r.0))
}

/// The predecessor enum type of the `if` whose then-region is `r`.
pub fn pred_enum(r: RegionId) -> Ident {
    ident(&format!("Pred{}", r.0))
}

/// The tape of the loop whose body is `r`.
pub fn tape(r: RegionId) -> Ident {
    ident(&format!("tape_{}", r.0))
}

/// The stack holding the tapes of every run of the loop whose body is `r`, when that
/// loop is nested in another (one allocation per call, not one per run).
pub fn stack(r: RegionId) -> Ident {
    ident(&format!("stack_{}", r.0))
}

/// Where the copy of vector `v` the linear maps read starts (`Saved::Copy`).
pub fn copy(func: &Function, v: Value) -> Ident {
    let base = value(func, v);
    ident(&format!("copy_{base}"))
}

/// The copies of vector `v` (`Saved::Copies`).
pub fn copies(func: &Function, v: Value) -> Ident {
    let base = value(func, v);
    ident(&format!("copies_{base}"))
}

/// The linear-map struct of region `r` (pullback or differential struct).
pub fn region_struct(r: RegionId, mode: Mode) -> Ident {
    match mode {
        Mode::Vjp => ident(&format!("Pullback{}", r.0)),
        Mode::Jvp => ident(&format!("Differential{}", r.0)),
    }
}

/// The four companions of a function: what `#[differentiable]` and a registration emit
/// beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Reverse mode in the internal convention (`Option` slots), for calls from bodies.
    Vjp,
    /// Forward mode in the internal convention.
    Jvp,
    /// Reverse mode in the user's tangent types, for the operators.
    Pullback,
    /// Forward mode in the user's tangent types.
    Differential,
    /// Reverse mode run on dual numbers, for second order (`lifting.rs`): not one of
    /// [`Kind::ALL`], which a registration provides.
    VjpDual,
}

impl Kind {
    /// The companion's name as an associated function of the function's carrier
    /// (`f::__vjp`).
    pub fn short(self) -> Ident {
        ident(match self {
            Kind::Vjp => "__vjp",
            Kind::Jvp => "__jvp",
            Kind::Pullback => "__pullback",
            Kind::Differential => "__differential",
            Kind::VjpDual => "__vjp_dual",
        })
    }

    /// The name of the companion taking the receiver as a constant (`__vjp_const_m`),
    /// which a trait's method has beside `__vjp_m` (`FnSig::constant_receiver`).
    pub fn constant_receiver(self, name: &Ident) -> Ident {
        self.beside(name, "_const")
    }

    /// The companion's name beside the function (`__vjp_f`), at the name's span.
    pub fn long(self, name: &Ident) -> Ident {
        self.beside(name, "")
    }

    /// `__vjp{infix}_f` for the function `f`, at its name's span.
    fn beside(self, name: &Ident, infix: &str) -> Ident {
        let name_text = name.to_string();
        let bare = name_text.trim_start_matches("r#");
        Ident::new(&format!("{}{infix}_{bare}", self.short()), name.span())
    }

    /// All four, in the order they are emitted.
    pub const ALL: [Kind; 4] = [Kind::Vjp, Kind::Jvp, Kind::Pullback, Kind::Differential];

    /// The mode the companion computes.
    pub fn mode(self) -> Mode {
        match self {
            Kind::Vjp | Kind::Pullback | Kind::VjpDual => Mode::Vjp,
            Kind::Jvp | Kind::Differential => Mode::Jvp,
        }
    }

    /// The calling convention's companion of `mode`.
    pub fn of(mode: Mode) -> Kind {
        match mode {
            Mode::Vjp => Kind::Vjp,
            Mode::Jvp => Kind::Jvp,
        }
    }
}

/// Whether `path` names a function by its name alone, through modules only: `f`,
/// `f::<T>`, `crate::f`, `super::f`, `self::super::f` (no leading `::`).
pub fn by_name_alone(path: &syn::Path) -> bool {
    let n = path.segments.len();
    path.leading_colon.is_none()
        && path.segments.iter().take(n.saturating_sub(1)).all(|s| {
            s.arguments.is_none() && (s.ident == "crate" || s.ident == "self" || s.ident == "super")
        })
}

/// The path of companion `kind` of the function a call names by `path` (the lookup rule,
/// decided by the path's form alone):
/// - one segment, `f` or `f::<T>`: the function's name, which the function's carrier
///   shares in the type namespace (`f::__vjp::<T>`), so the companions come along however
///   `f` was brought into scope (defined here, imported by name or glob, re-exported);
///   The same for a path through modules only: `crate::f`, `super::f`, `self::super::f`,
///   and `m::f` where `m` is a module of the crate ([`crate::source::is_module`]: the
///   source has `mod m` and no type or trait `m`), which may re-export `f` by name;
/// - another path, `m::f`, `Type::f`, `Self::f`, `<T as Tr>::f`: the sibling named after
///   it (`m::__vjp_f`): an item of module `m` (a function that is not private has them),
///   or an associated function of `Type`.
pub fn companion_path(path: &syn::Path, qualified: bool, kind: Kind) -> syn::Path {
    let (mut path, single) = lookup(path, qualified);
    let last = path.segments.last_mut().expect("a path has a segment");
    if single {
        let args = std::mem::take(&mut last.arguments);
        path.segments.push(syn::PathSegment {
            ident: kind.short(),
            arguments: args,
        });
    } else {
        last.ident = kind.long(&last.ident);
    }
    path
}

/// [`companion_path`] of a call's callee `p`, or, where the callee's companions are
/// reached only through its key ([`crate::source::keyed_crate`]: a function in a
/// module of its own name re-exported by name), `<<Key<H> as Carrier<_>>::Target>::__vjp`.
pub fn companion_expr(p: &syn::ExprPath, kind: Kind) -> syn::ExprPath {
    if p.qself.is_none() {
        if let Some(keyed) = keyed_companion(&p.path, kind) {
            return keyed;
        }
    }
    let mut companion = p.clone();
    companion.path = companion_path(&p.path, p.qself.is_some(), kind);
    companion
}

/// The companion `kind` of the function `path` names through its key, when it has one
/// (see [`companion_expr`]).
fn keyed_companion(path: &syn::Path, kind: Kind) -> Option<syn::ExprPath> {
    let full = match &path.segments.iter().collect::<Vec<_>>()[..] {
        [segment] if path.leading_colon.is_none() => {
            match crate::source::own_module_import(&segment.ident) {
                crate::source::OwnModuleImport::ByName(full) => full,
                _ => return None,
            }
        }
        _ if path.leading_colon.is_none() => path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .join("::"),
        _ => return None,
    };
    let segments: Vec<String> = full.split("::").map(str::to_string).collect();
    let last = path.segments.last()?;
    let krate = crate::source::keyed_crate(last.ident.span(), &segments)?;
    // (The function's own name, not the one a `use .. as` gives it.)
    let name = segments.last()?.trim_start_matches("r#");
    let key = proc_macro2::Literal::u64_unsuffixed(carrier_key(&krate, name));
    let short = kind.short();
    let args = &last.arguments;
    Some(syn::parse_quote_spanned! {last.ident.span()=>
        <<::diff::__private::Key<#key> as ::diff::__private::Carrier<_>>::Target>::#short #args
    })
}

/// The key of the carrier of the function `name` of the crate `krate` (diff-core `Key`):
/// the FNV-1a hash of `krate::name`, which the function's crate and its callers compute
/// alike.
pub fn carrier_key(krate: &str, name: &str) -> u64 {
    format!("{krate}::{name}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

/// The path a call by `path` names the function by, and whether it finds the companions
/// through the carrier ([`names_carrier`]). A name alone is read through the `use` that
/// imported it by name when the function is in a module of its own name (`use
/// objectives::sphere as sp;` where `mod sphere;` holds `pub fn sphere`): such an import
/// brings the function but not its carrier, which the module shadows; the companions are
/// beside the function in the module it was imported from (`objectives::__vjp_sphere`).
/// Brought by a glob, such a function's name finds the items beside it the glob brings
/// (`__vjp_sphere`).
fn lookup(path: &syn::Path, qualified: bool) -> (syn::Path, bool) {
    use crate::source::OwnModuleImport;
    let [segment] = path.segments.iter().collect::<Vec<_>>()[..] else {
        let path = defining_path(path).unwrap_or_else(|| path.clone());
        let carrier = names_carrier(&path, qualified);
        return (path, carrier);
    };
    if path.leading_colon.is_some() {
        return (path.clone(), names_carrier(path, qualified));
    }
    match crate::source::own_module_import(&segment.ident) {
        OwnModuleImport::ByName(full) => {
            let span = segment.ident.span();
            let mut imported = syn::Path {
                leading_colon: full.starts_with("::").then(|| syn::Token![::](span)),
                segments: full
                    .trim_start_matches("::")
                    .split("::")
                    .map(|s| syn::PathSegment::from(syn::Ident::new(s, span)))
                    .collect(),
            };
            if let Some(defined) = defining_path(&imported) {
                imported = defined;
            }
            if let Some(last) = imported.segments.last_mut() {
                last.arguments = segment.arguments.clone();
            }
            let carrier = names_carrier(&imported, qualified);
            (imported, carrier)
        }
        OwnModuleImport::ByGlob => (path.clone(), false),
        OwnModuleImport::No => (path.clone(), names_carrier(path, qualified)),
    }
}

/// `path` (`m::f`, through modules of this crate) to where `f` is defined, when it is
/// in a module of its own name re-exported by name ([`crate::source::defining_path`]),
/// the last segment's generic arguments kept.
fn defining_path(path: &syn::Path) -> Option<syn::Path> {
    let n = path.segments.len();
    if n < 2
        || path.leading_colon.is_some()
        || path
            .segments
            .iter()
            .take(n - 1)
            .any(|s| !s.arguments.is_none())
    {
        return None;
    }
    let last = path.segments.last()?;
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let defined = crate::source::defining_path(last.ident.span(), &names)?;
    let span = last.ident.span();
    let mut segments: syn::punctuated::Punctuated<syn::PathSegment, syn::Token![::]> = defined
        .iter()
        .map(|s| syn::PathSegment::from(syn::Ident::new(s, span)))
        .collect();
    segments.last_mut()?.arguments = last.arguments.clone();
    Some(syn::Path {
        leading_colon: None,
        segments,
    })
}

/// A statement that uses the name `path` is, when [`lookup`] reads it as another path:
/// an operator naming the function by an import, and by nothing else, uses the import
/// (rustc would call it unused).
pub fn mention_import(path: &syn::Path) -> TokenStream {
    match &path.segments.first() {
        Some(first) if lookup(path, false).0 != *path => {
            let name = &first.ident;
            quote::quote! { #[allow(unused_imports)] use #name as _; }
        }
        _ => TokenStream::new(),
    }
}

/// Whether a call by `path` (read through imports, [`lookup`]) finds the companions
/// through the function's carrier (`f::__vjp`, see [`companion_path`]). Not for a function
/// in a module of its own name (`mod sphere;` holding `pub fn sphere`, re-exported with a
/// glob, argmin's layout): where the module is, its name is the module's, which the
/// function's carrier cannot share; a call names the items beside the function, which
/// the glob brings: `objectives::__vjp_sphere`.
fn names_carrier(path: &syn::Path, qualified: bool) -> bool {
    let n = path.segments.len();
    if let Some(carrier) = crate::source::through_dependency_names_carrier(path) {
        return !qualified && carrier;
    }
    let in_module = n >= 2
        && path.leading_colon.is_none()
        && path.segments[n - 2].arguments.is_none()
        && crate::source::is_module(&path.segments[n - 2].ident)
        && !crate::source::is_module(&path.segments[n - 1].ident);
    !qualified && (by_name_alone(path) || in_module)
}

/// The carrier of the function a call names by `path` (`f` for `f::<T>`, `crate::m::f`),
/// when the call finds the companions through it; not for a function in a module of
/// its own name (`source::own_module`), whose carrier is visible in the crate only and,
/// outside the module, shadowed by the module.
pub fn carrier(path: &syn::Path, qualified: bool) -> Option<syn::Path> {
    let (path, names_carrier) = lookup(path, qualified);
    let last = &path.segments.last()?.ident;
    let own_module = crate::source::own_module(last.span()).is_some_and(|m| *last == m);
    if !names_carrier || crate::source::is_module(last) || own_module {
        return None;
    }
    let mut path = path.clone();
    path.segments.last_mut()?.arguments = syn::PathArguments::None;
    Some(path)
}

/// The predecessor enum variant of branch `i` of a branching instruction: `Then`/`Else`
/// for an `if`, `Arm0`, `Arm1`, ... for a `match`.
pub fn variant(inst: &crate::ir::Inst, i: usize) -> Ident {
    match (inst, i) {
        (crate::ir::Inst::If { .. }, 0) => ident("Then"),
        (crate::ir::Inst::If { .. }, _) => ident("Else"),
        _ => ident(&format!("Arm{i}")),
    }
}
