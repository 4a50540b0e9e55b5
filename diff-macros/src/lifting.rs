//! Second order on functions written for `f64` or `f32` (docs/ARCHITECTURE.md, "Second
//! order"): the IR of a function's *dual companion*, the same reverse sweep run on dual
//! numbers (`Dual<f64>`), so that `hessian!` and `second_derivative!` take a forward
//! derivative of the gradient without the user rewriting the function over `T: Float`.
//!
//! The differentiated parameters become dual numbers; so does every value computed from
//! them (the *lifted* values, found like activity's varied ones but through
//! `no_derivative` too). A plain value stays plain (`f64` and `Dual<f64>` mix in
//! arithmetic) except where Rust needs one type: a variable joined or carried with a
//! lifted value (`let mut s = 0.0; for .. { s += x }`), an element written into a lifted
//! array, an operand of a lifted operation, the result. There a statement converting it
//! (`Lift`, diff-core `lift.rs`) is inserted. Code that reads values only (a comparison,
//! an integer cast) reads plain views (`Plain`); a cast to a float reads its operand
//! through `CastSource`, which is an integer as it is (the index of an `enumerate` item
//! kept with a dual number) and panics on a dual number. A call's arguments are converted
//! where it is emitted (`LiftTo`, to the callee's parameter types).
//!
//! The companion must type-check wherever the function does, used or not, so anything
//! whose lifted type the macro cannot be sure of is refused (a struct holding a lifted
//! value, a value of unknown type meeting one): the companion then panics with the
//! reason (`emit/dual.rs`), only where second order is asked of the function.
use crate::analysis::activity::Activity;
use crate::emit::names::{self, Kind};
use crate::ir::{
    is_inactive_method, placeholder, Callee, Function, Inst, Opaque, RegionId, Stmt, Value,
};
use crate::twin::Twin;
use proc_macro2::{Ident, Span, TokenTree};
use quote::quote;
use std::collections::BTreeSet;

/// Rules of diff-core generic over the element type, so that they run on dual numbers
/// (`push`, `to_vec`, ..), besides the float methods' table.
const GENERIC_RULES: &[&str] = &[
    "array_repeat",
    "clear",
    "clone",
    "clone_from_slice",
    "concat",
    "copy_from_slice",
    "drain_to_vec",
    "expect",
    "extend_from_slice",
    "fill",
    "insert",
    "pop",
    "push",
    "remove",
    "resize",
    "rotate_left",
    "rotate_right",
    "some",
    "split_off",
    "sub_slice",
    "reverse",
    "swap",
    "swap_remove",
    "to_owned",
    "to_vec",
    "truncate",
    "unwrap",
    "unwrap_or",
    "unwrap_or_default",
    "vec_repeat",
];

/// Of the methods whose result carries no derivative (`ir::is_inactive_method`), those
/// dual numbers lack: they read the plain values. The others (`len`, `is_nan`,
/// `total_cmp`, ..) run on dual numbers as they are.
const PLAIN_ONLY: &[&str] = &["to_bits", "div_euclid", "contains", "binary_search"];

/// Macros whose result holds no value of the body (printing, assertions, the `bool` of
/// `matches!`).
pub(crate) const PLAIN_MACROS: &[&str] = &[
    "matches",
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "unreachable",
    "dbg",
];

/// The IR of the dual companion of `func`, whose scalar is `scalar` (`f64` or `f32`),
/// or why there is none.
pub fn lift(
    func: &Function,
    act: &Activity,
    lifted_params: &[usize],
    floats: FloatInputs<'_>,
    scalar: &str,
) -> Result<Function, String> {
    let mut l = Lifting {
        func,
        act,
        lifted_params,
        float_params: floats.params,
        param_fields: floats.param_fields,
        twins: floats.twins,
        param_structs: floats.param_structs,
        param_elements: floats.param_elements,
        param_discrete: floats.param_discrete,
        discrete_params: floats.discrete_params,
        type_params: floats.type_params,
        generic_structs: floats.generic_structs,
        in_closure: floats.in_closure,
        generic_methods: floats.generic_methods,
        user_types: names_user_types(func, floats.twins),
        cut_only: cut_only(func),
        used: used(func),
        lifted: BTreeSet::new(),
        scalar: Ident::new(scalar, Span::call_site()),
        refusal: None,
        floaty_steps: std::cell::Cell::new(0),
        at: None,
    };
    let untwinned = func
        .operator_structs
        .iter()
        .find(|ty| !floats.twins.iter().any(|(n, _)| n == *ty));
    if let Some(ty) = untwinned {
        l.refuse(format!(
            "values of `{ty}`, a struct with arithmetic operators of its own not all #[differentiable] (its fields cannot hold dual numbers)"
        ));
    }
    // A placeholder is one variable of the generated code, whatever paths it takes: once
    // it meets a dual value anywhere, it is dual everywhere, and classifying again
    // follows that.
    loop {
        l.classify_region(func.entry());
        let met = l.placeholders_meeting_lifted();
        if met.is_empty() {
            break;
        }
        l.lifted.extend(met);
    }
    if let Some(why) = l.refusal.take() {
        return Err(why);
    }
    let out = l.rewrite();
    match l.refusal {
        Some(why) => Err(why),
        None => Ok(out),
    }
}

/// What is known to be built of floats among a function's inputs, besides the lifted
/// parameters.
pub struct FloatInputs<'a> {
    /// The parameters whose type is built of floats (`f64`, `&[f64]`, `[f64; N]`, ..).
    pub params: &'a [usize],
    /// For each parameter held plain, its struct's fields of such types (read from the
    /// type's definition, `source::Seen::struct_fields`): a constant receiver, a `&Config`.
    pub param_fields: &'a [Vec<String>],
    /// The structs with a dual twin of the scalar (`twin.rs`) the function names.
    pub twins: &'a [(String, Twin)],
    /// For each parameter, the struct with a twin it holds (`s: S`, `s: &S`).
    pub param_structs: &'a [Option<String>],
    /// For each parameter, the struct with a twin its elements are (`ps: &[S]`,
    /// `Vec<S>`, `&[S; N]`).
    pub param_elements: &'a [Option<String>],
    /// For each parameter of a tuple type, the positions of its integers and `bool`s
    /// (`x: (f64, usize)`: `[1]`), which stay plain in the lifted tuple.
    pub param_discrete: &'a [Vec<usize>],
    /// The parameters of an integer or `bool` type (`k: i32`), plain in the lifted
    /// function.
    pub discrete_params: &'a [usize],
    /// The function's type parameters (`T` of `fn f<T: Objective>`).
    pub type_params: &'a [String],
    /// The crate's structs with type parameters, and the parameters of such a type.
    pub generic_structs: (&'a [String], &'a [usize]),
    /// Whether this is a closure given to a second-order operator, which is compiled
    /// only where the operator is used: arithmetic of a dual number with a value whose
    /// type the macro cannot see (captured data) is left to the compiler, which accepts
    /// it for floats and reports it at the operator otherwise.
    pub in_closure: bool,
    /// In such a closure, the methods of the crate's generic structs only
    /// (`source::Seen::generic_methods`): a plain value one is called on with a
    /// derivative (captured, or built of constants) is such a struct, converted to dual
    /// numbers for the call (`LiftGeneric`).
    pub generic_methods: &'a [String],
}

struct Lifting<'a> {
    func: &'a Function,
    act: &'a Activity,
    /// The differentiated parameters: dual numbers in the companion.
    lifted_params: &'a [usize],
    /// The parameters whose type is built of floats (`f64`, `&[f64]`, `[f64; N]`, ..).
    float_params: &'a [usize],
    /// For each parameter held plain, its struct's fields built of floats.
    param_fields: &'a [Vec<String>],
    /// The structs with a dual twin (`FloatInputs::twins`).
    twins: &'a [(String, Twin)],
    /// For each parameter, the struct with a twin it holds.
    param_structs: &'a [Option<String>],
    /// [`FloatInputs::param_elements`].
    param_elements: &'a [Option<String>],
    /// [`FloatInputs::param_discrete`].
    param_discrete: &'a [Vec<usize>],
    /// [`FloatInputs::discrete_params`].
    discrete_params: &'a [usize],
    /// [`FloatInputs::type_params`].
    type_params: &'a [String],
    /// [`FloatInputs::generic_structs`].
    generic_structs: (&'a [String], &'a [usize]),
    /// [`FloatInputs::in_closure`].
    in_closure: bool,
    /// [`FloatInputs::generic_methods`].
    generic_methods: &'a [String],
    /// Whether the body names a type other than the standard library's few.
    user_types: bool,
    /// The values used only inside `no_derivative(..)` ([`cut_only`]).
    cut_only: BTreeSet<Value>,
    /// The values some statement or region reads ([`used`]).
    used: BTreeSet<Value>,
    /// Values whose type holds dual numbers.
    lifted: BTreeSet<Value>,
    scalar: Ident,
    refusal: Option<String>,
    /// The steps of the current [`Lifting::floaty`] walk.
    floaty_steps: std::cell::Cell<usize>,
    /// The span of the statement being classified or rewritten.
    at: Option<Span>,
}

/// How an opaque expression reading a lifted value is taken.
enum OpaqueKind {
    /// A comparison or logical operator: a `bool`; its float literals become dual.
    Comparison,
    /// `[x; n]`, `vec![..]`: a collection of the lifted value.
    Collection,
    /// Printing, assertions: nothing of the body's values comes out.
    Plain,
    /// Anything else: refused.
    Unknown,
}

fn opaque_kind(o: &Opaque) -> OpaqueKind {
    match o.what.as_str() {
        "comparison or logical operator" | "`!` operator" | "bitwise operator" => {
            OpaqueKind::Comparison
        }
        "array expression" => OpaqueKind::Collection,
        "macro call" => match o.macro_name.as_deref() {
            Some("vec") => OpaqueKind::Collection,
            Some(m) if PLAIN_MACROS.contains(&m) => OpaqueKind::Plain,
            _ => OpaqueKind::Unknown,
        },
        _ => OpaqueKind::Unknown,
    }
}

/// The values every use of which is `no_derivative(v)` (used at least once, and not a
/// region's result).
fn cut_only(func: &Function) -> BTreeSet<Value> {
    let (mut cut, mut other) = (BTreeSet::new(), BTreeSet::new());
    for region in &func.regions {
        other.extend(region.yields.iter().copied());
        for stmt in &region.stmts {
            match &stmt.inst {
                Inst::NoDerivative(a) => {
                    cut.insert(*a);
                }
                inst => other.extend(inst.operands()),
            }
        }
    }
    cut.difference(&other).copied().collect()
}

/// The values some statement reads or some region yields; a closure bound in the body
/// that only other closures nothing reads capture (`let g = |y| y * x; let f = |z|
/// g(z) * z; f(x)`, every call inlined) counts as not read.
fn used(func: &Function) -> BTreeSet<Value> {
    let closure = |s: &Stmt| matches!(&s.inst, Inst::Opaque(o) if o.what == "closure");
    let stmts = || func.regions.iter().flat_map(|r| &r.stmts);
    // The closures read by nothing but closures of this set, to a fixed point.
    let mut unread: BTreeSet<Value> = stmts()
        .filter(|s| closure(s))
        .flat_map(|s| s.results.iter().copied())
        .collect();
    loop {
        let mut read = BTreeSet::new();
        for region in &func.regions {
            read.extend(region.yields.iter().copied());
        }
        for s in stmts() {
            if !(closure(s) && s.results.iter().all(|r| unread.contains(r))) {
                read.extend(s.inst.operands());
            }
        }
        let before = unread.len();
        unread.retain(|v| !read.contains(v));
        if unread.len() == before {
            let mut used = read;
            used.retain(|v| !unread.contains(v));
            return used;
        }
    }
}

/// Whether every use of `v` is as the condition of an `if` (a `bool` a macro gives,
/// `if is_zero!(x) { .. }`): code computing it may read plain values.
fn only_tested(func: &Function, v: Value) -> bool {
    let mut tested = false;
    for region in &func.regions {
        if region.yields.contains(&v) {
            return false;
        }
        for stmt in &region.stmts {
            if !stmt.inst.operands().contains(&v) {
                continue;
            }
            match &stmt.inst {
                Inst::If { cond, .. } if *cond == v => tested = true,
                _ => return false,
            }
        }
    }
    tested
}

/// Whether the body names a type of its own (`Vec3::new`, `S { .. }`, `T::ZERO`): any
/// capitalized name but those the language and the lowering use, and the structs with a
/// dual twin (of floats, with no arithmetic of their own, `source::Seen::twin`).
fn names_user_types(func: &Function, twins: &[(String, Twin)]) -> bool {
    const KNOWN: &[&str] = &[
        "Some",
        "None",
        "Ok",
        "Err",
        "Option",
        "Result",
        "Vec",
        "Default",
        "Ordering",
        "Iterator",
        "IntoIterator",
        "Clone",
        "Float",
        "Zero",
        "One",
        "Less",
        "Greater",
        "Equal",
        "Sum",
        "Product",
        "Box",
        "FromPrimitive",
        "NumCast",
        "ToPrimitive",
        "Real",
        "Differentiable",
        "Pointee",
        "MarkerOf",
        "Tape",
        "Lift",
        "LiftTo",
        "Plain",
        "RangeItem",
    ];
    let tokens = |ts: &proc_macro2::TokenStream| {
        fn any(ts: &proc_macro2::TokenStream, twins: &[(String, Twin)]) -> bool {
            ts.clone().into_iter().any(|tt| match tt {
                TokenTree::Ident(i) => {
                    let t = i.to_string();
                    t.starts_with(|c: char| c.is_ascii_uppercase())
                        && t.chars().any(|c| c.is_ascii_lowercase())
                        && !KNOWN.contains(&t.as_str())
                        && !twins.iter().any(|(n, _)| *n == t)
                }
                TokenTree::Group(g) => any(&g.stream(), twins),
                _ => false,
            })
        }
        any(ts, twins)
    };
    func.regions
        .iter()
        .flat_map(|r| &r.stmts)
        .any(|s| match &s.inst {
            Inst::Const(t) => tokens(t),
            Inst::Opaque(o) => tokens(&o.tokens),
            Inst::Call(Callee::Path(p), _) | Inst::CallMut(Callee::Path(p), _, _) => {
                // (A function named in capitals, `Jn(0, x)`, is not a type.)
                let mut p = p.clone();
                let function = p.path.segments.last().is_some_and(|f| {
                    crate::source::is_given_a_derivative(f.ident.span(), &f.ident.to_string())
                });
                if function {
                    p.path.segments.pop();
                }
                tokens(&quote!(#p))
            }
            Inst::Struct(p, _) => tokens(&quote!(#p)),
            Inst::Cast(_, ty) => tokens(&quote!(#ty)),
            Inst::Match { arms, .. } => arms.iter().any(|a| {
                let pat = &a.pat;
                tokens(&quote!(#pat)) || a.guard.as_ref().is_some_and(|g| tokens(&g.tokens))
            }),
            _ => false,
        })
}

/// Whether constant tokens name an associated constant of a float type (`Self::SHIFT`,
/// `Poly::SHIFT` with `const SHIFT: f64`, as the crate's source shows).
fn float_constant(ts: &proc_macro2::TokenStream) -> bool {
    let Ok(p) = syn::parse2::<syn::ExprPath>(ts.clone()) else {
        return false;
    };
    let segments = &p.path.segments;
    p.qself.is_none()
        && segments.len() == 2
        && segments
            .last()
            .is_some_and(|c| crate::source::float_constant(c.ident.span(), &c.ident.to_string()))
}

/// Whether constant tokens are a value given a type built of floats by its `let`
/// (`{ let __diff_typed: Option<f64> = None; __diff_typed }`, `lower/expr.rs`).
fn declared_of_floats(ts: &proc_macro2::TokenStream) -> bool {
    let Ok(block) = syn::parse2::<syn::Block>(ts.clone()) else {
        return false;
    };
    let Some(syn::Stmt::Local(syn::Local {
        pat: syn::Pat::Type(t),
        ..
    })) = block.stmts.first()
    else {
        return false;
    };
    fn of_floats(ts: proc_macro2::TokenStream) -> bool {
        ts.into_iter().all(|tt| match tt {
            TokenTree::Ident(i) => ["f64", "f32", "Option"].iter().any(|n| i == n),
            TokenTree::Group(g) => of_floats(g.stream()),
            TokenTree::Punct(_) => true,
            TokenTree::Literal(_) => false,
        })
    }
    of_floats(quote::ToTokens::to_token_stream(&*t.ty))
}

/// Whether constant tokens are a number, a float constant (`f64::EPSILON`,
/// `std::f64::consts::PI`), a typed literal, or an array of them: no user type.
fn numeric_tokens(ts: &proc_macro2::TokenStream) -> bool {
    // `()`, the value of a statement.
    if ts.to_string().replace(' ', "") == "()" {
        return true;
    }
    let mut any = false;
    for tt in ts.clone() {
        match tt {
            TokenTree::Literal(l) => {
                let t = l.to_string();
                if t.starts_with('"') || t.starts_with('\'') || t.starts_with('b') {
                    return false;
                }
                any = true;
            }
            TokenTree::Ident(i) => {
                let t = i.to_string();
                if t.starts_with(|c: char| c.is_ascii_uppercase())
                    && t.chars().any(|c| c.is_ascii_lowercase())
                {
                    // A type or variant name (`Vec3`, `Some`): not a number.
                    return false;
                }
                // `f64`, `f32`, and constants named in capitals (`const SCALE: f64`).
                any |= t == "f64"
                    || t == "f32"
                    || t.chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            }
            TokenTree::Group(g) => {
                if !numeric_tokens(&g.stream()) {
                    return false;
                }
                any = true;
            }
            TokenTree::Punct(_) => {}
        }
    }
    any
}

/// Why a call by `p` has no dual companion to call: a constructor (`Some(x)`, a tuple
/// struct) or an associated function that the crate's source does not show marked
/// (`<T as Tr>::f`, a generic `T::f`, one with a registered derivative, whose dual
/// companion a registration for one mode cannot make); `None` for a function (`f`,
/// `m::f`) or an associated function of a type the crate marks (`Spring::energy`,
/// `Self::f`, `m::Spring::energy`, a trait's `Cubic::force`), whose dual companion is
/// beside its first-order ones (`Spring::__vjp_dual_energy`).
fn not_a_function(p: &syn::ExprPath, generics: &[String]) -> Option<&'static str> {
    let segments: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    // A type's or a variant's name, not a function's named in capitals (`Jn(0, x)`).
    let function = segments
        .last()
        .filter(|f| crate::source::is_given_a_derivative(f.ident.span(), &f.ident.to_string()));
    let upper = |s: &syn::PathSegment| {
        s.ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase())
            && !function.is_some_and(|f| std::ptr::eq(*f, s))
    };
    let associated = match &segments[..] {
        [.., ty, f] => {
            upper(ty)
                && !upper(f)
                && segments[..segments.len() - 1]
                    .iter()
                    .all(|s| s.arguments.is_none())
                && !generics.iter().any(|g| ty.ident == g)
                && segments[..segments.len() - 2].iter().all(|s| !upper(s))
                && crate::source::marked_associated(
                    f.ident.span(),
                    (ty.ident != "Self")
                        .then(|| ty.ident.to_string())
                        .as_deref(),
                    &f.ident.to_string(),
                )
        }
        _ => false,
    };
    if segments.last().is_some_and(|s| upper(s)) {
        Some("a tuple struct or variant holding a value that carries a derivative")
    } else if p.qself.is_some() || (segments.iter().any(|s| upper(s)) && !associated) {
        Some("a call of an associated function (`Type::f`) of a value that carries a derivative")
    } else {
        None
    }
}

/// `Some(name)`, `None` or `_`.
fn option_pattern(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Wild(_) => true,
        // `None`, or a name binding the whole value (`v if v < 0.0 => ..`).
        syn::Pat::Ident(i) => i.subpat.is_none(),
        syn::Pat::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "None"),
        syn::Pat::TupleStruct(t) => {
            t.path.segments.last().is_some_and(|s| s.ident == "Some")
                && t.elems.len() == 1
                && matches!(t.elems.first(), Some(syn::Pat::Ident(i)) if i.subpat.is_none())
        }
        _ => false,
    }
}

/// Whether field `m` of a struct with twin `t` holds floats (is dual in the twin).
fn holds_floats(t: &Twin, m: &syn::Member) -> bool {
    let name = match m {
        syn::Member::Named(id) => id.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    };
    t.floats.contains(&name)
}

pub fn is_rule(method: &Ident) -> bool {
    diff_core::float_rules::METHODS.iter().any(|m| method == m)
        || GENERIC_RULES.iter().any(|m| method == m)
}

/// The number of float parameters of the float method `method` of diff-std's rule table,
/// the receiver included (`diff_core::float_rules::FLOAT_PARAMETERS`); 1 for another.
fn float_parameters(method: &Ident) -> usize {
    diff_core::float_rules::FLOAT_PARAMETERS
        .iter()
        .find(|(m, _)| method == m)
        .map_or(1, |(_, n)| *n)
}

/// Whether a call of `method` goes to the library's rule: named as one, and not a
/// method of the crate's of that name (`Callee::Method::user`).
pub fn calls_rule(method: &Ident, user: bool) -> bool {
    is_rule(method) && !user
}

/// Whether a call of `method` goes to a registered derivative (`#[derivative(of =
/// f64::error)]`, `source::registered_only`), which gives first order only: no dual
/// companion.
pub fn calls_registration(method: &Ident, user: bool) -> bool {
    !calls_rule(method, user) && crate::source::registered_only(method)
}

impl<'a> Lifting<'a> {
    /// Records why there is no dual companion (the first reason), naming the user's
    /// code it is about when the compiler gives its text.
    fn refuse(&mut self, why: impl Into<String>) {
        if self.refusal.is_none() {
            let mut why = why.into();
            if let Some(text) = self.at.and_then(|s| s.source_text()) {
                let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
                let short: String = text.chars().take(80).collect();
                let more = if short.len() < text.len() { " .." } else { "" };
                why = format!("{why} (`{short}{more}`)");
            }
            self.refusal = Some(why);
        }
    }

    /// Whether `stmt` calls a function of the user's whose result goes only into
    /// `no_derivative(..)`: it runs on the plain values (it may have no derivative, nor
    /// a dual companion; `rewrite_stmt`).
    fn runs_plain(&self, stmt: &Stmt) -> bool {
        let Inst::Call(Callee::Path(p), _) = &stmt.inst else {
            return false;
        };
        if crate::ir::is_library_path(p) {
            return false;
        }
        // Inside `no_derivative(..)`, or a function without a derivative whose result
        // carries none (`match classify(x) { .. }` of `fn classify(x: f64) -> Kind`).
        let plain_function = || {
            let last = p.path.segments.last();
            p.qself.is_none()
                && p.path.segments.len() == 1
                && last.is_some_and(|s| {
                    crate::source::has_no_derivative(s.ident.span(), &s.ident.to_string())
                })
        };
        self.cut_only.contains(&stmt.results[0])
            || (!self.act.is_active(stmt.results[0]) && plain_function())
    }

    /// Whether `v` is a value of one of the crate's generic structs (built by a literal,
    /// or a parameter), through what passes a type on ([`Lifting::same_type`]).
    fn of_generic_struct(&self, v: Value, depth: usize) -> bool {
        if depth > 48 {
            return false;
        }
        if let Some(w) = self.same_type(v) {
            return self.of_generic_struct(w, depth + 1);
        }
        let (structs, params) = self.generic_structs;
        match self.func.def_inst(v) {
            Some(Inst::Struct(p, _)) => p
                .segments
                .last()
                .is_some_and(|s| structs.iter().any(|n| s.ident == n)),
            Some(Inst::Param(i)) => params.contains(i),
            _ => false,
        }
    }

    /// The twin of the struct `v` is, when it is one with a twin: built by a struct
    /// literal, a parameter of that type, or a copy, update or join of one.
    fn twin_of(&self, v: Value) -> Option<&'a Twin> {
        let name = self.struct_name(v, 0)?;
        self.twins.iter().find(|(n, _)| *n == name).map(|(_, t)| t)
    }

    /// The struct the field `m` of the twin `a` holds, as `nested` lists them (`nested`
    /// or `nested_elements` of [`Twin`]).
    fn nested_in(
        &self,
        a: Value,
        m: &syn::Member,
        nested: impl Fn(&Twin) -> &Vec<(String, String)>,
    ) -> Option<String> {
        let outer = self.twin_of(a)?;
        let name = match m {
            syn::Member::Named(id) => id.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        let (_, inner) = nested(outer).iter().find(|(f, _)| *f == name)?;
        Some(inner.clone())
    }

    /// The struct with a twin the elements of `v` are, when `v` is a parameter that is a
    /// collection of them (or passes its type on, [`Lifting::same_type`]).
    fn element_struct(&self, v: Value, depth: usize) -> Option<String> {
        if depth > 48 {
            return None;
        }
        if let Some(w) = self.same_type(v) {
            return self.element_struct(w, depth + 1);
        }
        match self.func.def_inst(v)? {
            Inst::Param(i) => self.param_elements.get(*i).cloned().flatten(),
            // A twin's field holding a `Vec` or array of another (`m.layers`).
            Inst::Field(a, m) => self.nested_in(*a, m, |t| &t.nested_elements),
            // A collection built in the body (`vec![Bead { .. }, ..]`, `[b; 3]`,
            // `vec![b; n]`): its elements' struct.
            Inst::Array(vs, _) => self.struct_name(*vs.first()?, depth + 1),
            Inst::Call(Callee::Path(p), args)
                if crate::ir::is_library_fn(p, "vec_repeat")
                    || crate::ir::is_library_fn(p, "array_repeat") =>
            {
                self.struct_name(*args.first()?, depth + 1)
            }
            _ => None,
        }
    }

    /// Whether `a.m` is an integer or `bool` of a parameter's tuple (`x.1` of `x: (f64,
    /// usize)`).
    fn is_discrete_element(&self, a: Value, m: &syn::Member) -> bool {
        let syn::Member::Unnamed(i) = m else {
            return false;
        };
        let mut a = a;
        while let Some(w) = self.same_type(a) {
            a = w;
        }
        matches!(self.func.def_inst(a), Some(Inst::Param(p))
            if self.param_discrete.get(*p).is_some_and(|d| d.contains(&(i.index as usize))))
    }

    /// Whether `v` is an integer or `bool` the macro knows of: a parameter of such a type
    /// or such an element of a parameter's tuple.
    fn is_discrete(&self, v: Value) -> bool {
        match self.func.def_inst(v) {
            Some(Inst::Param(p)) => self.discrete_params.contains(p),
            Some(Inst::Field(a, m)) => self.is_discrete_element(*a, m),
            _ => false,
        }
    }

    /// The initial value of the loop-carried variable `v` (a loop body's parameter).
    fn loop_init(&self, v: Value) -> Option<Value> {
        let func = self.func;
        func.regions
            .iter()
            .flat_map(|r| &r.stmts)
            .find_map(|s| match &s.inst {
                Inst::For { init, body, .. } => {
                    let params = &func.region(*body).params;
                    let i = params.iter().take(init.len()).position(|p| *p == v)?;
                    Some(init[i])
                }
                _ => None,
            })
    }

    /// The value whose type `v` has, where `v`'s definition passes a type through (the
    /// one rule of [`Lifting::struct_name`] and [`Lifting::floaty`]): a loop-carried
    /// variable's or a loop result's initial value, a borrow, dereference, load, copy
    /// (`clone`) or `no_derivative` of a value, a collection or struct with an element or
    /// field written, the updated value of a `&mut` argument.
    fn same_type(&self, v: Value) -> Option<Value> {
        let Some(stmt) = self.func.def(v) else {
            return self.loop_init(v);
        };
        let k = stmt.results.iter().position(|r| *r == v).unwrap_or(0);
        match &stmt.inst {
            Inst::Ref(a, _)
            | Inst::Deref(a)
            | Inst::Load(a)
            | Inst::NoDerivative(a)
            | Inst::SetIndex(a, ..)
            | Inst::SetField(a, ..) => Some(*a),
            Inst::Call(Callee::Method { method, .. }, args) if method == "clone" => {
                args.first().copied()
            }
            Inst::For { init, .. } => init.get(k).copied(),
            Inst::CallMut(_, args, mutated) if k > 0 => args.get(*mutated.get(k - 1)?).copied(),
            _ => None,
        }
    }

    fn struct_name(&self, v: Value, depth: usize) -> Option<String> {
        if depth > 48 {
            return None;
        }
        let func = self.func;
        let f = |w: Value| self.struct_name(w, depth + 1);
        if let Some(w) = self.same_type(v) {
            return f(w);
        }
        let stmt = func.def(v)?;
        let k = stmt.results.iter().position(|r| *r == v).unwrap_or(0);
        match &stmt.inst {
            Inst::Struct(p, _) => {
                let last = p.segments.last()?;
                let name = last.ident.to_string();
                (last.arguments.is_none() && self.twins.iter().any(|(n, _)| *n == name))
                    .then_some(name)
            }
            Inst::Param(i) => self.param_structs.get(*i).cloned().flatten(),
            // An element of a parameter that is a collection of such structs.
            Inst::Index(a, _) => self.element_struct(*a, depth + 1),
            // A nested struct's field (`p.pos` of `pos: Vec2`).
            Inst::Field(a, m) => self.nested_in(*a, m, |t| &t.nested),
            Inst::Call(Callee::Method { method, .. }, args) if method == "to_owned" => {
                f(*args.first()?)
            }
            // A method of the struct returning it (`p.scaled(k)`, `p - q`), or another
            // struct with a twin (`p.rhs(s)` of `P` returning an `S`).
            Inst::Call(Callee::Method { method, .. }, args) => {
                let name = f(*args.first()?)?;
                let (_, twin) = self.twins.iter().find(|(n, _)| *n == name)?;
                if twin.methods_returning_it.iter().any(|m| method == m) {
                    return Some(name);
                }
                let (_, other) = twin.methods_returning.iter().find(|(m, _)| method == m)?;
                self.twins
                    .iter()
                    .any(|(n, _)| n == other)
                    .then(|| other.clone())
            }
            Inst::If { .. } | Inst::Match { .. } => {
                let branches = stmt.inst.branches().unwrap_or_default();
                branches
                    .iter()
                    .find_map(|r| f(*func.region(*r).yields.get(k)?))
            }
            // A tuple struct's constructor.
            Inst::Call(Callee::Path(p), _) if self.tuple_twin(p).is_some() => {
                p.path.segments.last().map(|s| s.ident.to_string())
            }
            // `make(..)`, a free function the source shows returning the struct.
            Inst::Call(Callee::Path(p), _) if p.qself.is_none() && p.path.segments.len() == 1 => {
                let f = &p.path.segments[0].ident;
                self.twins
                    .iter()
                    .find(|(_, t)| t.returned_by.iter().any(|g| f == g))
                    .map(|(name, _)| name.clone())
            }
            // `S::new(..)` returning the struct, also through modules (`dist::S::new`).
            Inst::Call(Callee::Path(p), _)
                if p.qself.is_none()
                    && p.path.segments.len() >= 2
                    && p.path
                        .segments
                        .iter()
                        .rev()
                        .skip(1)
                        .all(|s| s.arguments.is_none()) =>
            {
                let n = p.path.segments.len();
                let (ty, f) = (&p.path.segments[n - 2].ident, &p.path.segments[n - 1].ident);
                let (name, twin) = self.twins.iter().find(|(n, _)| ty == n)?;
                let returns_it = twin.functions.iter().any(|(g, r)| f == g && *r);
                returns_it.then(|| name.clone())
            }
            _ => None,
        }
    }

    /// For a call of a method on a struct's dual twin (`s.get(k)`, `S::get(&s, k)`,
    /// `s.step(k)` with `&mut self`) where the struct's inherent `impl` marks the method
    /// `#[differentiable]` (so its companion for a twin receiver exists, `twin.rs`): the
    /// callee that reaches that companion, and the receiver (without the borrow of a
    /// path call, `&s`).
    fn on_twin(&self, stmt: &Stmt) -> Option<(Callee, Value)> {
        let (callee, args, updates) = match &stmt.inst {
            Inst::Call(c, args) => (c, args, false),
            Inst::CallMut(c, args, mutated) => (c, args, mutated.contains(&0)),
            _ => return None,
        };
        let mut recv = *args.first()?;
        let method = match callee {
            Callee::Method { method, .. } => method.clone(),
            Callee::Path(p) if p.qself.is_none() && p.path.segments.len() == 2 => {
                // `S::get(&s, ..)`: the receiver is what is borrowed.
                if let (false, Some(Inst::Ref(a, _))) =
                    (updates, self.func.def(recv).map(|s| &s.inst))
                {
                    recv = *a;
                }
                // (`S::get(&s)`, or `Trait::get(&s)` of a trait `S` implements: a path
                // through no other struct's name.)
                let ty = &p.path.segments[0].ident;
                let other_struct = self.twins.iter().any(|(n, _)| ty == n);
                if self
                    .struct_name(recv, 0)
                    .is_none_or(|n| ty != &n && other_struct)
                {
                    return None;
                }
                p.path.segments[1].ident.clone()
            }
            _ => return None,
        };
        // A receiver updated in place by a call with dual arguments becomes dual: a
        // plain one is converted first (`rewrite_stmt`).
        let dual = self.is_lifted(recv) || (updates && self.any_lifted(args));
        if !dual {
            return None;
        }
        let twin = self.twin_of(recv)?;
        if !twin.methods.iter().any(|m| method == m) {
            return None;
        }
        let written = self.struct_name(recv, 0)?;
        let ty = self
            .written_path(recv, 0)
            .unwrap_or_else(|| Ident::new(&written, method.span()).into());
        Some((Callee::OnTwin { ty, method }, recv))
    }

    /// The path of the struct of `v` as the body writes it where that is through
    /// modules (`dist::S { .. }`, `dist::S::new(..)`: `dist::S`); `None` for a name
    /// alone, or where it is not seen.
    fn written_path(&self, v: Value, depth: usize) -> Option<syn::Path> {
        if depth > 48 {
            return None;
        }
        if let Some(w) = self.same_type(v) {
            return self.written_path(w, depth + 1);
        }
        let mut path = match self.func.def_inst(v)? {
            Inst::Struct(p, _) => p.clone(),
            Inst::Call(Callee::Path(p), _) if p.qself.is_none() => {
                let mut path = p.path.clone();
                path.segments.pop();
                path.segments.pop_punct();
                path
            }
            _ => return None,
        };
        if path.segments.len() < 2 || path.segments.iter().any(|s| !s.arguments.is_none()) {
            return None;
        }
        path.segments.last_mut()?.arguments = syn::PathArguments::None;
        Some(path)
    }

    /// The twin of the tuple struct a call by `p` constructs (`P(x, y)`, `Self(x, y)`),
    /// when it has one: the call is built as the twin (`__DiffDualP(x, y)`, whose
    /// constructor's derivative the derive gives, `__vjp_dual`).
    fn tuple_twin(&self, p: &syn::ExprPath) -> Option<&'a Twin> {
        let last = p.path.segments.last()?;
        if p.qself.is_some() || !last.arguments.is_none() {
            return None;
        }
        let (_, t) = self.twins.iter().find(|(n, _)| last.ident == n)?;
        let tuple = t.floats.iter().any(|f| f.parse::<usize>().is_ok());
        tuple.then_some(t)
    }

    /// [`not_a_function`], except for an associated function or method of a struct with a
    /// dual twin that its inherent `impl` marks `#[differentiable]` (`S::new(x)`,
    /// `Self::new`, `S::get(&s, x)`): its dual companion exists.
    fn not_a_function(&self, p: &syn::ExprPath) -> Option<&'static str> {
        if self.tuple_twin(p).is_some() {
            return None;
        }
        let segments: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
        if let ([ty, f], None) = (&segments[..], &p.qself) {
            let twin = self.twins.iter().find(|(n, _)| ty.ident == n);
            // (A method called by its path on a plain receiver, `S::get(&s, x)`, reaches
            // its dual companion the same way.)
            let marked = |t: &Twin| {
                t.functions.iter().any(|(g, _)| f.ident == g)
                    || t.methods.iter().any(|m| f.ident == m)
            };
            if twin.is_some_and(|(_, t)| marked(t)) {
                return None;
            }
        }
        not_a_function(p, self.type_params)
    }

    /// Whether a plain receiver of `method` is converted to dual numbers for a call with
    /// dual arguments: in a closure, a method of the crate's generic structs only.
    fn converts_receiver(&self, method: &Ident) -> bool {
        self.in_closure && self.generic_methods.iter().any(|m| method == m)
    }

    fn is_lifted(&self, v: Value) -> bool {
        self.lifted.contains(&v)
    }

    fn any_lifted(&self, vs: &[Value]) -> bool {
        vs.iter().any(|v| self.is_lifted(*v))
    }

    fn classify_region(&mut self, r: RegionId) {
        let func = self.func;
        for stmt in &func.region(r).stmts {
            self.classify_stmt(stmt);
        }
    }

    fn classify_stmt(&mut self, stmt: &Stmt) {
        let func = self.func;
        self.at = Some(stmt.span);
        let lifted = match &stmt.inst {
            Inst::Param(i) => self.lifted_params.contains(i),
            Inst::Const(_) => false,
            Inst::Opaque(o) => {
                if !self.any_lifted(&o.uses) {
                    false
                } else {
                    match opaque_kind(o) {
                        // Read the plain values (`plain_reader`).
                        _ if o.inactive => false,
                        OpaqueKind::Comparison | OpaqueKind::Plain => false,
                        OpaqueKind::Collection => true,
                        // A closure bound in the body whose calls are all inlined
                        // (`lower/closure.rs`): nothing reads its value, so it may read
                        // the plain values.
                        OpaqueKind::Unknown
                            if o.what == "closure"
                                && stmt.results.iter().all(|r| !self.used.contains(r)) =>
                        {
                            false
                        }
                        // A test (a macro giving a `bool` an `if` reads) reads the plain
                        // values, as comparisons do.
                        OpaqueKind::Unknown
                            if stmt.results.iter().all(|r| only_tested(func, *r)) =>
                        {
                            false
                        }
                        OpaqueKind::Unknown => {
                            let article = match o.what.chars().next() {
                                Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
                                _ => "a",
                            };
                            self.refuse(format!(
                                "{article} {} reading a value that carries a derivative",
                                o.what
                            ));
                            false
                        }
                    }
                }
            }
            Inst::Binary(_, a, b) => self.any_lifted(&[*a, *b]),
            // A field of a twin is dual when it is one of its floats.
            Inst::Field(a, m) => {
                self.is_lifted(*a)
                    && self.twin_of(*a).is_none_or(|t| holds_floats(t, m))
                    && !self.is_discrete_element(*a, m)
            }
            Inst::Neg(a)
            | Inst::Index(a, _)
            | Inst::Ref(a, _)
            | Inst::Deref(a)
            | Inst::Load(a)
            | Inst::NoDerivative(a) => self.is_lifted(*a),
            Inst::Call(Callee::Method { method, user, .. }, args) => {
                if !self.any_lifted(args)
                    || is_inactive_method(method, args.len().saturating_sub(1))
                {
                    // Runs on dual numbers, or reads the plain values (`PLAIN_ONLY`).
                    false
                } else {
                    // A method differentiated at first order on a receiver that stays
                    // plain (`m.loss(x)`) has a dual companion too, which the call goes
                    // through (`emit/primal.rs`); on a dual receiver (a method of a user
                    // trait on `f64`) there is none.
                    let through_companion = self.act.is_active(stmt.results[0])
                        && args.first().is_some_and(|r| !self.is_lifted(*r));
                    // An operator of a struct of the crate (`p * k`): without a twin
                    // (`source::Seen::twin`) it has no dual companion, and the
                    // operator's name is a float rule's; with one it is the twin's.
                    let on_struct = self
                        .func
                        .method_receivers
                        .iter()
                        .find(|(r, _)| *r == stmt.results[0]);
                    let operator = crate::ir::BinOp::is_operator_method(method);
                    let untwinned = |ty: &String| !self.twins.iter().any(|(n, _)| n == ty);
                    if let Some((_, ty)) = on_struct.filter(|(_, ty)| operator && untwinned(ty)) {
                        self.refuse(format!(
                            "the operator method `{method}` of `{ty}`, given values that carry a derivative"
                        ));
                    }
                    // (The companion of a method of a struct generic over its floats is
                    // generic: it would take the receiver's floats, not dual numbers.)
                    if through_companion && self.converts_receiver(method) {
                        // Converted to dual numbers for the call (`rewrite_stmt`).
                    } else if through_companion && self.of_generic_struct(args[0], 0) {
                        self.refuse(format!(
                            "the method `{method}` of a generic struct holding no dual numbers, given values that carry a derivative"
                        ));
                    }
                    // A struct generic over its floats, held as dual numbers
                    // (`m: &Model<f64>` taken as `Model<Dual<f64>>`): its methods'
                    // companions are generic, and run on it as they are.
                    let (structs, _) = self.generic_structs;
                    let receiver_generic = func
                        .method_receivers
                        .iter()
                        .any(|(r, ty)| *r == stmt.results[0] && structs.contains(ty));
                    let generic_dual = args.first().is_some_and(|r| {
                        self.is_lifted(*r) && (receiver_generic || self.of_generic_struct(*r, 0))
                    });
                    if !calls_rule(method, *user)
                        && !through_companion
                        && !generic_dual
                        && self.on_twin(stmt).is_none()
                    {
                        self.refuse(format!(
                            "the method `{method}` called on a value that carries a derivative"
                        ));
                    }
                    true
                }
            }
            Inst::Call(Callee::OnTwin { .. }, _) => true,
            // Inside `no_derivative(..)`: not lifted.
            Inst::Call(..) if self.runs_plain(stmt) => false,
            Inst::Call(Callee::Path(p), args) => {
                if !self.any_lifted(args) {
                    false
                } else {
                    let why = self
                        .not_a_function(p)
                        .filter(|_| self.on_twin(stmt).is_none());
                    if let Some(why) = why {
                        self.refuse(why);
                    }
                    // A call whose result carries no derivative is rewritten to the value
                    // of its dual companion (`rewrite_stmt`).
                    true
                }
            }
            Inst::CallMut(callee, args, mutated) => {
                let any = self.any_lifted(args);
                if any {
                    // A function updating `&mut` floats: its dual companion takes them
                    // dual (`rewrite_stmt` converts the others).
                    match callee {
                        // Through the callee's dual companion, also when its result
                        // carries no derivative (`Emitter::primal_call_mut`).
                        Callee::Path(p) if self.not_a_function(p).is_none() => {}
                        // A method of a struct's twin (`s.step(k)`, `S::step(&mut s, k)`).
                        _ if self.on_twin(stmt).is_some() => {}
                        // A rule of diff-core generic over the element (`push`, `swap`).
                        Callee::Method { method, user, .. } if calls_rule(method, *user) => {}
                        // A method of the user's on a receiver that stays plain and is not
                        // updated (`self.step(&mut u)` of a `&self` method of settings):
                        // through its dual companion, as a call that updates nothing
                        // (`Emitter::primal_call_mut`).
                        Callee::Method { .. }
                            if !mutated.contains(&0)
                                && args.first().is_some_and(|r| !self.is_lifted(*r)) => {}
                        _ => self.refuse("a method updating `&mut` arguments, of a value that carries a derivative"),
                    }
                }
                any
            }
            Inst::Tuple(vs) | Inst::Array(vs, _) => self.any_lifted(vs),
            // Built as the struct's twin when it has one.
            Inst::Struct(_, fields) => {
                let any = fields.iter().any(|(_, v)| self.is_lifted(*v));
                match self.twin_of(stmt.results[0]) {
                    _ if !any => {}
                    // A struct generic over its floats holds dual numbers as it is.
                    None if self.of_generic_struct(stmt.results[0], 0) => {}
                    None => self.refuse(
                        "a struct literal holding a value that carries a derivative, of a struct with no dual twin (it derives no Differentiable, is generic, has a field of another type than floats, integers and strings, or implements arithmetic)",
                    ),
                    // (A dual value given to a field that is not of floats, a
                    // `#[no_derivative]` one, is stored as its plain value.)
                    Some(_) => {}
                }
                any
            }
            Inst::SetField(b, m, v) if self.twin_of(*b).is_some() => {
                // A value written to a field that is not of floats keeps the struct plain.
                let t = self.twin_of(*b).expect("a twin");
                self.is_lifted(*b) || (self.is_lifted(*v) && holds_floats(t, m))
            }
            Inst::SetField(b, m, v) => {
                // A tuple's element (a tuple of floats converts as a whole).
                let tuple = matches!(func.def(*b).map(|s| &s.inst), Some(Inst::Tuple(_)))
                    || (matches!(m, syn::Member::Unnamed(_)) && self.floaty(*b, 0));
                if self.is_lifted(*v) && !self.is_lifted(*b) && !tuple {
                    self.refuse(
                        "a field of a struct written with a value that carries a derivative",
                    );
                }
                self.any_lifted(&[*b, *v])
            }
            Inst::SetIndex(b, _, v) => self.any_lifted(&[*b, *v]),
            // (A lifted operand is read through `CastSource`: an integer, as the index
            // of an `enumerate` item kept with a dual number, is cast as it is.)
            Inst::Cast(..) => false,
            Inst::Nested(n) => {
                let captured = n.captures.iter().flat_map(|c| [c.read, c.kept]);
                if std::iter::once(n.at)
                    .chain(captured)
                    .any(|v| self.is_lifted(v))
                {
                    self.refuse("an operator called in the body");
                }
                false
            }
            Inst::If { .. } | Inst::Match { .. } => {
                if let Inst::Match { scrutinee, arms } = &stmt.inst {
                    if self.is_lifted(*scrutinee) {
                        // `Some(w)` / `None` / `_` of an `Option` of a dual value: the
                        // binding is dual. Any other pattern could bind an integer or
                        // compare with a float literal.
                        let option = arms.iter().all(|a| option_pattern(&a.pat));
                        if option {
                            for a in arms {
                                self.lifted
                                    .extend(func.region(a.region).params.iter().copied());
                            }
                        } else {
                            self.refuse("a `match` on a value that carries a derivative");
                        }
                    }
                }
                let branches = stmt.inst.branches().expect("a branching instruction");
                for r in &branches {
                    self.classify_region(*r);
                }
                for (i, res) in stmt.results.iter().enumerate() {
                    if !self.act.integers.contains(res)
                        && branches
                            .iter()
                            .any(|r| self.is_lifted(func.region(*r).yields[i]))
                    {
                        self.lifted.insert(*res);
                    }
                }
                return;
            }
            Inst::For {
                iter, init, body, ..
            } => {
                if self.is_lifted(*iter) {
                    self.refuse("a loop over values that carry a derivative");
                }
                let region = func.region(*body);
                loop {
                    let before = self.lifted.len();
                    for (i, p) in region.params.iter().take(init.len()).enumerate() {
                        let lifted = self.is_lifted(init[i]) || self.is_lifted(region.yields[i]);
                        if lifted && !self.act.integers.contains(p) {
                            self.lifted.insert(*p);
                        }
                    }
                    self.classify_region(*body);
                    if self.lifted.len() == before {
                        break;
                    }
                }
                for (i, r) in stmt.results.iter().enumerate() {
                    if self.is_lifted(region.params[i]) {
                        self.lifted.insert(*r);
                    }
                }
                return;
            }
        };
        if lifted {
            let integers = &self.act.integers;
            self.lifted
                .extend(stmt.results.iter().filter(|v| !integers.contains(v)));
        }
    }

    /// The placeholders ([`Lifting::placeholder`]) not yet dual that share a type with a
    /// dual value: a loop's initial value whose variable is dual, a branch's yield whose
    /// result is, the collection a rule method updates with a dual value (`v.push(x)`).
    fn placeholders_meeting_lifted(&self) -> Vec<Value> {
        let mut met = Vec::new();
        let mut meet = |v: Value, dual: bool| {
            if dual && !self.is_lifted(v) && self.placeholder(v) {
                met.push(v);
            }
        };
        for stmt in self.func.regions.iter().flat_map(|r| &r.stmts) {
            match &stmt.inst {
                Inst::For { init, body, .. } => {
                    let params = &self.func.region(*body).params;
                    for (i, v) in init.iter().enumerate() {
                        meet(*v, self.is_lifted(params[i]));
                    }
                }
                Inst::CallMut(_, args, mutated) => {
                    let dual = self.any_lifted(&stmt.results);
                    for i in mutated {
                        meet(args[*i], dual);
                    }
                }
                inst => {
                    for r in inst.branches().unwrap_or_default() {
                        let yields = &self.func.region(r).yields;
                        for (i, res) in stmt.results.iter().enumerate() {
                            meet(yields[i], self.is_lifted(*res));
                        }
                    }
                }
            }
        }
        met
    }

    /// Whether `v` is a constant a rule's argument keeps as written: a message
    /// (`expect("..")`), an integer (`v.swap(0, 1)`, `x.powi(2)`) or a range
    /// (`v.drain(..2)`), which no conversion to dual numbers concerns.
    fn kept_constant(&self, v: Value) -> bool {
        matches!(self.func.def(v).map(|s| &s.inst),
            Some(Inst::Const(t)) if !numeric_tokens(t))
            || matches!(self.func.def_inst(v), Some(Inst::Opaque(o)) if o.what == "range")
            || self.integer_literal(v)
    }

    /// Whether `v` is an integer literal (`1`, `0usize`), which `Lift` leaves as it is.
    fn integer_literal(&self, v: Value) -> bool {
        matches!(self.func.def(v).map(|s| &s.inst), Some(Inst::Const(t))
            if crate::analysis::integers::integer_literal(t))
    }

    /// Whether `v` is a value typed by its uses, not converted: the placeholder of a
    /// variable declared before its value (`Default::default()`, typed by what it is
    /// joined with), `None`, an empty `Vec` (`Vec::new()`, `Vec::with_capacity(n)`,
    /// `vec![]`, typed by what is pushed into it), and the never-read value after a loop left only
    /// by `return` (`unreachable!()`). Each is dual where what meets it is.
    fn placeholder(&self, v: Value) -> bool {
        match self.func.def(v).map(|s| &s.inst) {
            Some(Inst::Opaque(o)) => {
                o.uses.is_empty()
                    && o.tokens.to_string().replace(' ', "") == "::core::unreachable!()"
            }
            Some(Inst::Const(t)) => {
                let last = t.clone().into_iter().last();
                matches!(last, Some(TokenTree::Ident(i)) if i == "None")
            }
            Some(Inst::Array(vs, crate::ir::Sequence::Vec)) => vs.is_empty(),
            Some(Inst::Call(Callee::Path(p), args)) => {
                let names = crate::ir::segment_names(&p.path);
                match names.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                    [.., "default"] => args.is_empty(),
                    [.., "Vec", "new"] => args.is_empty(),
                    [.., "Vec", "with_capacity"] => args.len() == 1,
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// A statement converting the plain value `v` to dual numbers, and its result.
    fn lift_stmt(&self, out: &mut Function, v: Value, span: Span) -> (Value, Stmt) {
        let w = out.new_value(None, span);
        let (s, ph) = (&self.scalar, Ident::new(&placeholder(0), Span::call_site()));
        let tokens = quote!(::diff::__private::Lift::<#s>::lift(::core::clone::Clone::clone(&#ph)));
        let stmt = Stmt {
            results: vec![w],
            inst: Inst::Opaque(Opaque {
                tokens,
                uses: vec![v],
                what: "conversion to dual numbers".into(),
                macro_name: None,
                inactive: true,
                discrete: false,
            }),
            span,
        };
        (w, stmt)
    }

    /// Replaces a lifted operand `*v` of code that reads values only (a comparison, an
    /// integer cast, `total_cmp`, printing) by its plain value, computed before it: that
    /// code then runs as the user wrote it, on plain floats.
    fn plain_view(&self, out: &mut Function, before: &mut Vec<Stmt>, v: &mut Value, span: Span) {
        let plain = quote!(::diff::__private::Plain::plain);
        self.view(out, before, v, span, plain);
    }

    /// Replaces a lifted operand `*v` by `how(&v)`, computed before it (`Plain::plain`,
    /// `CastSource::cast_source`), which carries no derivative.
    fn view(
        &self,
        out: &mut Function,
        before: &mut Vec<Stmt>,
        v: &mut Value,
        span: Span,
        how: proc_macro2::TokenStream,
    ) {
        if !self.is_lifted(*v) {
            return;
        }
        // A tuple holding references (an `enumerate` or `zip` item) has no plain view
        // that keeps them: it stays dual (`a.1.total_cmp(b.1)` runs on dual numbers).
        if let Some(Inst::Tuple(vs)) = self.func.def(*v).map(|s| &s.inst) {
            if vs.iter().any(|e| self.is_reference(*e)) {
                return;
            }
        }
        let w = out.new_value(None, span);
        let ph = Ident::new(&placeholder(0), Span::call_site());
        // A reference stays one, as deep as it was (`|a: &&f64, b| ..` of `min_by` reads
        // `&&f64`, and so does a `filter`'s test of a slice's items, `**v > 0.0`).
        let refs = (0..self.reference_depth(*v)).map(|_| quote!(&));
        let tokens = quote!(#(#refs)* #how(&#ph));
        before.push(Stmt {
            results: vec![w],
            inst: Inst::Opaque(Opaque {
                tokens,
                uses: vec![*v],
                what: "value of a dual number".into(),
                macro_name: None,
                inactive: true,
                discrete: false,
            }),
            span,
        });
        *v = w;
    }

    /// Whether the plain value `v` is surely a float, an integer, or built of them
    /// (`Lift` converts it, and dual numbers have arithmetic with it).
    fn floaty(&self, v: Value, depth: usize) -> bool {
        // Chains of joins and element writes run deep; a walk that branches at every
        // join is cut after a bounded number of steps (then: not known).
        if depth == 0 {
            self.floaty_steps.set(0);
        }
        self.floaty_steps.set(self.floaty_steps.get() + 1);
        if depth > 48 || self.floaty_steps.get() > 4096 {
            return false;
        }
        let func = self.func;
        let f = |w: Value| self.floaty(w, depth + 1);
        if let Some(w) = self.same_type(v) {
            return f(w);
        }
        let Some(stmt) = func.def(v) else {
            return self.counted_item(v);
        };
        let k = stmt.results.iter().position(|r| *r == v).unwrap_or(0);
        match &stmt.inst {
            Inst::Const(t) => numeric_tokens(t) || declared_of_floats(t) || float_constant(t),
            // The referent's value (`*&t.0`).
            Inst::Deref(a) | Inst::Load(a) => match func.def_inst(*a) {
                Some(Inst::Ref(b, _)) => f(*b),
                _ => f(*a),
            },
            Inst::Param(i) => self.float_params.contains(i),
            Inst::Cast(..) => true,
            Inst::Binary(_, a, b) => f(*a) && f(*b),
            Inst::Neg(a) | Inst::Index(a, _) => f(*a),
            Inst::Field(a, m) => {
                let name = quote!(#m).to_string();
                // A float field of a parameter held plain, also through a field of it of a
                // struct with a twin (`p.origin.x`, listed as `origin.x`).
                let of_param = |base: Value, path: &str| {
                    self.param_fields.iter().enumerate().any(|(i, fields)| {
                        self.func.is_param(base, i) && fields.iter().any(|f| f == path)
                    })
                };
                let nested = match self.func.def_inst(*a) {
                    Some(Inst::Field(b, outer)) => {
                        of_param(*b, &format!("{}.{name}", quote!(#outer)))
                    }
                    _ => false,
                };
                f(*a)
                    || of_param(*a, &name)
                    || nested
                    || self.twin_of(*a).is_some_and(|t| holds_floats(t, m))
            }
            Inst::Tuple(vs) | Inst::Array(vs, _) => vs.iter().all(|w| f(*w)),
            // A copy of a collection of floats (`y[a..].to_vec()`, a sub-slice lent to a
            // function taking `&mut [T]`).
            Inst::Call(Callee::Method { method, .. }, args)
                if ["to_vec", "clone", "to_owned"].iter().any(|m| method == m) =>
            {
                args.first().is_some_and(|a| f(*a))
            }
            Inst::Call(Callee::Path(p), args) if crate::ir::is_library_fn(p, "sub_slice") => {
                args.first().is_some_and(|a| match func.def_inst(*a) {
                    Some(Inst::Ref(b, _)) => f(*b),
                    _ => f(*a),
                })
            }
            Inst::Call(Callee::Method { method, .. }, args) => {
                diff_core::float_rules::METHODS.iter().any(|m| method == m)
                    || (method == "div_euclid" && args.first().is_some_and(|a| f(*a)))
                    || (["unwrap", "expect", "unwrap_or"]
                        .iter()
                        .any(|m| method == m)
                        && args.first().is_some_and(|a| f(*a)))
            }
            // A call of a function: a float unless the body names types of its own (a
            // helper returning a user's vector type would have no arithmetic with dual
            // numbers).
            Inst::Call(Callee::Path(p), args) => {
                let some = p
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "some" || s.ident == "Some");
                if some {
                    args.iter().all(|a| f(*a))
                } else {
                    !self.user_types
                }
            }
            Inst::Opaque(o) => {
                o.inactive
                    || matches!(opaque_kind(o), OpaqueKind::Collection) && numeric_tokens(&o.tokens)
            }
            // A placeholder yield (`None`) takes the type the other branches give it.
            Inst::If { .. } | Inst::Match { .. } => {
                let branches = stmt.inst.branches().unwrap_or_default();
                let yields: Option<Vec<Value>> = branches
                    .iter()
                    .map(|r| func.region(*r).yields.get(k).copied())
                    .collect();
                let typed: Vec<Value> = yields
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|y| !self.placeholder(*y))
                    .collect();
                !typed.is_empty() && typed.iter().all(|y| self.is_lifted(*y) || f(*y))
            }
            _ => self.is_lifted(v),
        }
    }

    /// Whether `v` is the item of a loop over integers: a range, or a range's
    /// `enumerate()`, `rev()`, `step_by(k)`, `skip(k)` or `take(k)` (an index loop a chain
    /// became counts its items with `(0..n).enumerate()`).
    fn counted_item(&self, v: Value) -> bool {
        let func = self.func;
        let Some(region) = func.regions.iter().position(|r| r.params.contains(&v)) else {
            return false;
        };
        let Some(Inst::For {
            iter, init, body, ..
        }) = func.loop_of(RegionId(region as u32)).map(|s| &s.inst)
        else {
            return false;
        };
        let item = func.region(*body).params.get(init.len()) == Some(&v);
        let mut it = *iter;
        // (Bounded: as many adapters as the user wrote.)
        for _ in 0..16 {
            match func.def_inst(it) {
                Some(Inst::Opaque(o)) if o.what == "range" => return item,
                Some(Inst::Call(Callee::Method { method, .. }, args))
                    if ["enumerate", "rev", "step_by", "skip", "take"]
                        .iter()
                        .any(|m| method == m) =>
                {
                    it = args[0];
                }
                _ => return false,
            }
        }
        false
    }

    /// Whether `v` is read only by field projections (`t.0`): never yielded, carried,
    /// passed or joined as a whole.
    fn only_projected(&self, v: Value) -> bool {
        self.func.regions.iter().all(|r| {
            !r.yields.contains(&v)
                && r.stmts.iter().all(|s| {
                    matches!(s.inst, Inst::Field(a, _) if a == v) || !s.inst.operands().contains(&v)
                })
        })
    }

    /// How many references deep `v` is, as far as its definitions show (`&&xs[i]`: 2; a
    /// parameter taken by reference: 1).
    fn reference_depth(&self, v: Value) -> usize {
        let mut depth = 0;
        let mut v = v;
        // (Bounded: a chain of references is as long as the user wrote it.)
        while depth < 16 {
            match self.func.def(v).map(|s| &s.inst) {
                Some(Inst::Ref(a, _)) => v = *a,
                Some(Inst::Param(i)) if self.func.by_ref.contains(i) => return depth + 1,
                // An element of a tuple built in the body (through a reference to it),
                // which may be a reference itself (`&(p.1)` of `p = (i, &x)`).
                Some(Inst::Field(a, syn::Member::Unnamed(k))) => {
                    let mut t = *a;
                    while let Some(Inst::Ref(b, _)) = self.func.def_inst(t) {
                        t = *b;
                    }
                    match self.func.def_inst(t) {
                        Some(Inst::Tuple(vs)) if (k.index as usize) < vs.len() => {
                            v = vs[k.index as usize];
                            continue;
                        }
                        _ => return depth,
                    }
                }
                _ => return depth,
            }
            depth += 1;
        }
        depth
    }

    /// Whether `v` is a macro call that never returns (`panic!(..)`, `unreachable!()`,
    /// `todo!()`, `unimplemented!()`), whose type is whatever its place needs.
    fn diverges(&self, v: Value) -> bool {
        matches!(self.func.def_inst(v), Some(Inst::Opaque(o))
        if o.macro_name.as_deref().is_some_and(|m| {
            matches!(m, "panic" | "unreachable" | "todo" | "unimplemented")
        }))
    }

    /// Whether `v` is a reference (a borrow, a parameter taken by reference).
    fn is_reference(&self, v: Value) -> bool {
        match self.func.def(v).map(|s| &s.inst) {
            Some(Inst::Ref(..)) => true,
            Some(Inst::Param(i)) => self.func.by_ref.contains(i),
            _ => false,
        }
    }

    /// Converts the plain operand `*v` to dual numbers before the statement (pushed to
    /// `before`). Where the statement needs it, the operand's type is that of a lifted
    /// value, which is built of floats (`Lift` converts it): a struct holding a lifted
    /// value is refused.
    fn convert(&mut self, out: &mut Function, before: &mut Vec<Stmt>, v: &mut Value, span: Span) {
        // (An integer stays as it is, and keeps the type its uses infer: `Lift` would
        // fix a literal's at `i32`.)
        if self.is_lifted(*v) || self.placeholder(*v) || self.act.integers.contains(v) {
            return;
        }
        let of_twins = self.twin_of(*v).is_some() || self.element_struct(*v, 0).is_some();
        if !self.in_closure && !self.floaty(*v, 0) && !of_twins {
            // `Lift` would not compile on a type of the user's (a struct joined with a
            // call's result the macro took for dual).
            self.refuse("a value whose type is not known to be built of floats, joined with one that carries a derivative");
            return;
        }
        self.convert_float(out, before, v, span);
    }

    /// [`Lifting::convert`] of a value known to be a float or an integer (an argument of a
    /// float method).
    fn convert_float(
        &mut self,
        out: &mut Function,
        before: &mut Vec<Stmt>,
        v: &mut Value,
        span: Span,
    ) {
        // An integer converts to itself; an unsuffixed literal given to `Lift` would lose
        // the type its use gives it (`st.2 + 1` with `st.2: usize`).
        if self.is_lifted(*v) || self.integer_literal(*v) {
            return;
        }
        // A tuple of literals with an integer among them (`(0, f64::MIN)`, a `fold`'s
        // start): built again of its elements converted, so that the integer keeps the
        // type its use gives it.
        if let Some(Inst::Tuple(vs)) = self.func.def_inst(*v) {
            let literals = vs
                .iter()
                .all(|e| matches!(self.func.def_inst(*e), Some(Inst::Const(_))));
            if literals && vs.iter().any(|e| self.integer_literal(*e)) {
                let mut vs = vs.clone();
                for e in vs.iter_mut() {
                    self.convert_float(out, before, e, span);
                }
                let w = out.new_value(None, span);
                before.push(Stmt {
                    results: vec![w],
                    inst: Inst::Tuple(vs),
                    span,
                });
                *v = w;
                return;
            }
        }
        let (w, s) = self.lift_stmt(out, *v, span);
        before.push(s);
        *v = w;
    }

    /// The function with the conversions inserted.
    fn rewrite(&mut self) -> Function {
        let func = self.func;
        let mut out = func.clone();
        for (r, region) in func.regions.iter().enumerate() {
            let mut stmts = Vec::with_capacity(region.stmts.len());
            for stmt in &region.stmts {
                let mut stmt = stmt.clone();
                let mut before = Vec::new();
                self.rewrite_stmt(&mut out, &mut stmt, &mut before);
                stmts.extend(before);
                stmts.push(stmt);
            }
            out.regions[r].stmts = stmts;
        }
        // The result, and the final values of the `&mut` parameters taken dual: dual
        // even where no derivative reaches them.
        let entry = func.entry();
        let n = out.region(entry).yields.len();
        for k in 0..n {
            let dual = k == 0
                || func
                    .mutated
                    .get(k - 1)
                    .is_some_and(|i| self.lifted_params.contains(i));
            if !dual {
                continue;
            }
            let mut y = out.region(entry).yields[k];
            let mut after = Vec::new();
            self.convert(&mut out, &mut after, &mut y, Span::call_site());
            out.region_mut(entry).stmts.extend(after);
            out.region_mut(entry).yields[k] = y;
        }
        // The yields joined with lifted values: converted at the end of their region.
        for region in &func.regions {
            for stmt in &region.stmts {
                let subs: Vec<(RegionId, usize)> = match &stmt.inst {
                    Inst::If { .. } | Inst::Match { .. } => {
                        let bs = stmt.inst.branches().unwrap_or_default();
                        (0..stmt.results.len())
                            .filter(|i| self.is_lifted(stmt.results[*i]))
                            .flat_map(|i| bs.iter().map(move |b| (*b, i)))
                            .collect()
                    }
                    Inst::For { init, body, .. } => (0..init.len())
                        .filter(|i| self.is_lifted(func.region(*body).params[*i]))
                        .map(|i| (*body, i))
                        .collect(),
                    _ => continue,
                };
                // The branches of a join yield values of one type (rustc checks): one
                // known to be a float makes the others floats.
                let float_join: Vec<bool> = (0..stmt.results.len())
                    .map(|i| {
                        matches!(stmt.inst, Inst::If { .. } | Inst::Match { .. })
                            && stmt.inst.branches().unwrap_or_default().iter().any(|b| {
                                let y = func.region(*b).yields[i];
                                !self.placeholder(y) && self.floaty(y, 0)
                            })
                    })
                    .collect();
                for (sub, i) in subs {
                    let mut y = out.region(sub).yields[i];
                    // (A branch that never yields, `_ => panic!(..)`, has any type.)
                    if self.diverges(y) {
                        continue;
                    }
                    let mut after = Vec::new();
                    if float_join[i] {
                        self.convert_float(&mut out, &mut after, &mut y, stmt.span);
                    } else {
                        self.convert(&mut out, &mut after, &mut y, stmt.span);
                    }
                    out.region_mut(sub).stmts.extend(after);
                    out.region_mut(sub).yields[i] = y;
                }
            }
        }
        out.reindex();
        out
    }

    /// Gives a call of a function generic over its scalars only, named without them,
    /// the scalar here (see `rewrite_stmt`).
    fn name_scalars(&self, p: &mut syn::ExprPath) {
        let segments = &p.path.segments;
        // (A function of a module; `Type::f` is an associated one.)
        let of_module = segments.iter().rev().skip(1).all(|s| {
            s.arguments.is_none()
                && s.ident
                    .to_string()
                    .starts_with(|c: char| c.is_lowercase() || c == '_')
        });
        let Some(last) = segments.last() else {
            return;
        };
        // (A closure given to an operator may run on dual numbers of dual numbers, nested
        // in another operator: there inference finds the callee's scalar.)
        if self.in_closure || p.qself.is_some() || !last.arguments.is_none() || !of_module {
            return;
        }
        let Some(k) =
            crate::source::scalar_generic_arity(last.ident.span(), &last.ident.to_string())
        else {
            return;
        };
        let scalar = &self.scalar;
        let args = (0..k).map(|_| quote!(#scalar));
        if let Some(last) = p.path.segments.last_mut() {
            last.arguments = syn::PathArguments::AngleBracketed(syn::parse_quote!(::<#(#args),*>));
        }
    }

    fn rewrite_stmt(&mut self, out: &mut Function, stmt: &mut Stmt, before: &mut Vec<Stmt>) {
        let span = stmt.span;
        self.at = Some(span);
        // A placeholder (`Default::default()`) takes its type from its uses as written;
        // one typed (`<Option<f64> as Default>::default()`, the value of a pending
        // `return`, `lower/exits.rs`) the lifted type, where it is dual.
        if let Some(r) = stmt
            .results
            .first()
            .copied()
            .filter(|r| self.placeholder(*r))
        {
            if let (true, Inst::Call(Callee::Path(p), _)) = (self.is_lifted(r), &mut stmt.inst) {
                if let Some(q) = &mut p.qself {
                    let ty = &q.ty;
                    let twins: Vec<String> = (self.twins.iter())
                        .filter(|(_, t)| self.scalar == t.scalar)
                        .map(|(n, _)| n.clone())
                        .collect();
                    let lifted =
                        crate::emit::dual::lift_tokens_with(&quote!(#ty), &self.scalar, &twins);
                    if let Ok(t) = syn::parse2(lifted) {
                        *q.ty = t;
                    }
                }
            }
            return;
        }
        let lifted = stmt.results.iter().any(|r| self.is_lifted(*r));
        // A function generic over its scalars named without them (`square(x)` of `fn
        // square<T: Float>`): at the scalar here, `square::<f64>`, which the call of its
        // dual companion lifts (`emit/primal.rs`); rustc could not infer it from the
        // arguments, converted by `LiftTo`.
        if let Inst::Call(Callee::Path(p), _) = &mut stmt.inst {
            self.name_scalars(p);
        }
        // A method whose derivative is registered has no dual companion (a registration
        // gives first order only).
        if let Inst::Call(Callee::Method { method, user, .. }, _)
        | Inst::CallMut(Callee::Method { method, user, .. }, _, _) = &stmt.inst
        {
            if lifted && calls_registration(method, *user) {
                let why = format!("a call of the method `{method}`, whose derivative is registered (#[derivative(of = ..)] gives first order only)");
                self.refuse(why);
            }
        }
        if let Some((callee, recv)) = self.on_twin(stmt) {
            if let Inst::Call(c, args) | Inst::CallMut(c, args, _) = &mut stmt.inst {
                *c = callee;
                args[0] = recv;
            }
            // Its other arguments are converted where it is emitted (`LiftTo`); the
            // `&mut` ones below.
            if matches!(stmt.inst, Inst::Call(..)) {
                return;
            }
        }
        // `P(x, y)` of a tuple struct with a twin: `__DiffDualP(x, y)`, a dual value given
        // to a field that is not of floats (`#[no_derivative]`) as its plain value.
        if let Inst::Call(Callee::Path(p), args) = &mut stmt.inst {
            if let (true, Some(t)) = (lifted, self.tuple_twin(p)) {
                if let Some(last) = p.path.segments.last_mut() {
                    last.ident = crate::twin::ident(&t.name, last.ident.span());
                }
                for (i, a) in args.iter_mut().enumerate() {
                    if !t.floats.contains(&i.to_string()) {
                        self.plain_view(out, before, a, span);
                    }
                }
            }
        }
        // A call inside `no_derivative(..)` runs on the plain values.
        if self.runs_plain(stmt) {
            if let Inst::Call(_, args) = &mut stmt.inst {
                for a in args.iter_mut() {
                    self.plain_view(out, before, a, span);
                }
            }
            return;
        }
        // A call of a lifted value whose result carries no derivative (read by a
        // comparison only): the value of the callee's dual companion, which takes the
        // dual arguments, where the original function would not.
        if let Inst::Call(Callee::Path(p), args) = &stmt.inst {
            let library = crate::ir::is_library_path(p);
            if lifted && !library && !self.act.is_active(stmt.results[0]) {
                let companion = names::companion_expr(p, Kind::VjpDual);
                let phs = (0..args.len()).map(|i| {
                    let ph = Ident::new(&placeholder(i), Span::call_site());
                    quote!(::diff::__private::LiftTo::lift_to(#ph))
                });
                stmt.inst = Inst::Opaque(Opaque {
                    tokens: quote!(#companion(#(#phs),*).0),
                    uses: args.clone(),
                    what: "call".into(),
                    macro_name: None,
                    inactive: false,
                    discrete: false,
                });
                return;
            }
        }
        // A plain receiver of a method of a generic struct, given dual arguments: the
        // struct at dual numbers.
        if let Inst::Call(Callee::Method { method, .. }, args) = &mut stmt.inst {
            let plain_receiver = args.first().is_some_and(|r| !self.is_lifted(*r));
            if plain_receiver
                && self.act.is_active(stmt.results[0])
                && self.converts_receiver(method)
            {
                let w = out.new_value(None, span);
                let ph = Ident::new(&placeholder(0), Span::call_site());
                before.push(Stmt {
                    results: vec![w],
                    inst: Inst::Opaque(Opaque {
                        tokens: quote!(::diff::__private::LiftGeneric::lift_generic(&#ph)),
                        uses: vec![args[0]],
                        what: "struct at dual numbers".into(),
                        macro_name: None,
                        inactive: true,
                        discrete: false,
                    }),
                    span,
                });
                args[0] = w;
            }
        }
        match &mut stmt.inst {
            Inst::Binary(_, a, b) if lifted => {
                // A dual number meets only floats (or other dual numbers): a value of a
                // type the macro does not know (a user's vector type with `Mul<f64>`) has
                // no arithmetic with dual numbers.
                // (Where the crate implements no arithmetic of its own, a value meeting a
                // float in arithmetic is a float: `d` of `Loss::Huber(d) => d * r`.)
                let only_floats = self.func.no_arithmetic_of_its_own;
                let unknown = |v: Value| !self.is_lifted(v) && !self.floaty(v, 0);
                let unknowns = [unknown(*a), unknown(*b)];
                for (v, unknown) in [*a, *b].into_iter().zip(unknowns) {
                    if unknown && !self.in_closure && !only_floats {
                        // Shown with the operand of unknown type (`i!(SNUM, i)` in
                        // `num * x + i!(SNUM, i)`), not the whole statement.
                        // (A macro's span is its name alone: the call is written out.)
                        let why = "arithmetic between a value that carries a derivative and one whose type is not known to be a float";
                        let def = self.func.def(v);
                        let (why, operand) = match def.map(|s| &s.inst) {
                            Some(Inst::Opaque(o)) if o.macro_name.is_some() => {
                                let name = o.macro_name.as_deref().unwrap_or_default();
                                (format!("{why} (`{name}!(..)`)"), None)
                            }
                            _ => (why.to_string(), def.map(|s| s.span).or(self.at)),
                        };
                        let statement = std::mem::replace(&mut self.at, operand);
                        self.refuse(why);
                        self.at = statement;
                    }
                    if self.twin_of(v).is_some() {
                        self.refuse(
                            "arithmetic on a struct holding a value that carries a derivative",
                        );
                    }
                }
                for (v, unknown) in [a, b].into_iter().zip(unknowns) {
                    if only_floats && unknown {
                        self.convert_float(out, before, v, span);
                    } else {
                        self.convert(out, before, v, span);
                    }
                }
            }
            // A method's dual companion converts its arguments itself (`LiftTo`).
            // A constant given for a float parameter (a captured `b` in `s.powf(b)`, a
            // `const` of the crate) converts too; one for another (`powi`'s `i32`) not.
            Inst::Call(Callee::Method { method, user, .. }, args)
                if lifted && calls_rule(method, *user) =>
            {
                let floats = float_parameters(method);
                for (k, a) in args.iter_mut().enumerate() {
                    let constant_float = k < floats
                        && !self.integer_literal(*a)
                        && matches!(self.func.def_inst(*a), Some(Inst::Const(_)));
                    if !self.kept_constant(*a) || constant_float {
                        self.convert_float(out, before, a, span);
                    }
                }
            }
            Inst::CallMut(callee, args, mutated) if lifted => {
                for i in mutated.iter() {
                    // (Integers written through `&mut` stay as they are: `idx: &mut
                    // Vec<usize>`.)
                    if self.act.integers.contains(&args[*i]) {
                        continue;
                    }
                    let known = self.floaty(args[*i], 0)
                        || self.twin_of(args[*i]).is_some()
                        || self.element_struct(args[*i], 0).is_some();
                    if !self.is_lifted(args[*i]) && !known {
                        self.refuse("a `&mut` argument whose type is not known to be built of floats, beside a value that carries a derivative");
                    }
                    self.convert(out, before, &mut args[*i], span);
                }
                if matches!(callee, Callee::Method { .. }) {
                    for (i, a) in args.iter_mut().enumerate() {
                        if !mutated.contains(&i) && !self.kept_constant(*a) && self.floaty(*a, 0) {
                            self.convert_float(out, before, a, span);
                        }
                    }
                }
            }
            // A tuple only taken apart (the item of a `for (k, a) in ..` pattern) needs
            // no element converted: an element of a type the macro cannot tell (the
            // index of an `enumerate` item) stays as it is.
            // An integer the macro knows of stays one (`(p, k)` with `k: i32`).
            Inst::Tuple(vs) if lifted => {
                let only_projected = self.only_projected(stmt.results[0]);
                for v in vs.iter_mut() {
                    if self.is_discrete(*v) {
                        continue;
                    }
                    if !only_projected || self.floaty(*v, 0) {
                        self.convert(out, before, v, span);
                    }
                }
            }
            Inst::Array(vs, _) if lifted => {
                for v in vs.iter_mut() {
                    self.convert(out, before, v, span);
                }
            }
            // `S { a: x, n: k }` as `__DiffDualS { a: x, n: k }`, its floats dual.
            Inst::Struct(_, fields) if lifted && self.twin_of(stmt.results[0]).is_none() => {
                // Generic over its floats (refused otherwise): the fields built of
                // floats converted, the others as they are.
                for (_, v) in fields.iter_mut() {
                    if self.floaty(*v, 0) {
                        self.convert(out, before, v, span);
                    }
                }
            }
            Inst::Struct(path, fields) if lifted => {
                let twin = self
                    .twin_of(stmt.results[0])
                    .expect("refused without a twin");
                if path.segments.len() > 1 {
                    // Through its alias (`twin::aliases`).
                    let mut written = path.clone();
                    if let Some(last) = written.segments.last_mut() {
                        last.arguments = syn::PathArguments::None;
                    }
                    let span = path
                        .segments
                        .last()
                        .map_or_else(Span::call_site, |l| l.ident.span());
                    *path = crate::twin::ident(&twin.name, span).into();
                    if !out.twin_paths.contains(&written) {
                        out.twin_paths.push(written);
                    }
                } else if let Some(last) = path.segments.last_mut() {
                    last.ident = crate::twin::ident(&twin.name, last.ident.span());
                }
                for (m, v) in fields.iter_mut() {
                    if holds_floats(twin, m) {
                        self.convert_float(out, before, v, span);
                    } else {
                        // A `#[no_derivative]` field: the plain value.
                        self.plain_view(out, before, v, span);
                    }
                }
            }
            Inst::SetField(b, m, v) if lifted && self.twin_of(*b).is_some() => {
                let holds = holds_floats(self.twin_of(*b).expect("a twin"), m);
                self.convert(out, before, b, span);
                if holds {
                    self.convert_float(out, before, v, span);
                } else {
                    // A `#[no_derivative]` field: the plain value.
                    self.plain_view(out, before, v, span);
                }
            }
            Inst::SetField(b, _, v) | Inst::SetIndex(b, _, v) if lifted => {
                self.convert(out, before, b, span);
                self.convert(out, before, v, span);
            }
            Inst::Cast(a, _) => {
                let source = quote!(::diff::__private::CastSource::cast_source);
                self.view(out, before, a, span, source);
            }
            Inst::Opaque(o) if !lifted && self.any_lifted(&o.uses) => {
                for u in o.uses.iter_mut() {
                    self.plain_view(out, before, u, span);
                }
            }
            Inst::Call(Callee::Method { method, .. }, args)
                if !lifted
                    && is_inactive_method(method, args.len().saturating_sub(1))
                    && PLAIN_ONLY.iter().any(|m| method == m) =>
            {
                for a in args.iter_mut() {
                    self.plain_view(out, before, a, span);
                }
            }
            Inst::For { init, body, .. } => {
                let params = self.func.region(*body).params.clone();
                for (i, v) in init.iter_mut().enumerate() {
                    if self.is_lifted(params[i]) {
                        self.convert(out, before, v, span);
                    }
                }
            }
            _ => {}
        }
    }
}
