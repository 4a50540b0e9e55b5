//! The SSA IR: values defined once, structured regions for control flow.
//!
//! Entities are small `u32` newtypes indexing arenas in [`Function`]. Control flow is
//! structured (regions nested in `If` / `Match` / `Loop` statements), mirroring Rust's own
//! structured control flow; a region's `yields` play the role of block arguments at the
//! join, so there are no phi nodes.

mod display;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// An SSA value: defined by exactly one statement (or a region parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Value(pub u32);

/// Index of a region in [`Function::regions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegionId(pub u32);

/// What the IR knows about a value besides its definition.
#[derive(Clone, Debug)]
pub struct ValueData {
    /// The user's variable name, when the value is a binding; used for readable output.
    pub name: Option<String>,
    /// Where the value comes from in the user's code (for diagnostics about values).
    #[allow(dead_code)]
    pub span: Span,
}

/// Binary operators the IR distinguishes. Arithmetic ones are differentiable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    /// `%`: d/da = 1, d/db = -trunc(a / b).
    Rem,
}

impl BinOp {
    /// Every operator.
    pub const ALL: [BinOp; 5] = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Rem];

    /// Whether `method` is an operator's method (`add`, .., `rem`) or `neg`.
    pub fn is_operator_method(method: &syn::Ident) -> bool {
        let name = method.to_string();
        // Called as the copy named after the right operand (`__mul_by_f64`).
        let name = crate::operator_impls::split_by_rhs(&name).map_or(name.as_str(), |(m, _)| m);
        name == "neg" || BinOp::ALL.iter().any(|op| name == op.method())
    }

    /// The method of `core::ops` the operator calls (`add` for `+`).
    pub fn method(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Rem => "rem",
        }
    }
}

/// What a literal sequence builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sequence {
    /// `[a, b]`.
    Array,
    /// `vec![a, b]`.
    Vec,
}

/// How `&` borrows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Borrow {
    /// `&x`.
    Shared,
    /// `&mut x`.
    Mut,
}

/// How a call names its callee.
#[derive(Clone, Debug)]
pub enum Callee {
    /// `path(args)`: a free function or an associated function (`m::g`, `Self::g`, `g::<T>`).
    Path(syn::ExprPath),
    /// `args[0].method(args[1..])`, also used for `f64::sin(x)`-style calls of a type's method.
    Method {
        /// The method name.
        method: syn::Ident,
        /// Turbofish, if any.
        turbofish: Option<syn::AngleBracketedGenericArguments>,
        /// Whether a trait of the crate marks a method of this name #[differentiable]:
        /// with a receiver that carries no derivative, the call goes to the
        /// constant-receiver companions (`__vjp_const_m`), which every implementation
        /// has, of a Differentiable type or not.
        of_trait: bool,
        /// Whether the method is one of the crate's named like a float method the
        /// library has a rule for (`s.exp(x)` on a struct of the crate defining `fn
        /// exp(&self, x: f64) -> f64`): its own companions are called, also on dual
        /// numbers, not the rule.
        user: bool,
    },
    /// `args[0].method(args[1..])` where `args[0]` is a struct's dual twin, in a dual
    /// companion (`lifting.rs`): the method's companion for a twin receiver,
    /// `Type::__vjp_dual_self_method(&args[0], ..)`, `ty` the struct as the body names it.
    OnTwin {
        /// The struct (`S`, `Self`, `dist::S`).
        ty: syn::Path,
        /// The method name.
        method: syn::Ident,
    },
}

/// Whether a call by `p` is of the library's own rules (`::diff::__private::vec_repeat`),
/// generic over the element type, so that they run on dual numbers as they are.
pub fn is_library_path(p: &syn::ExprPath) -> bool {
    p.path.leading_colon.is_some() && p.path.segments.first().is_some_and(|s| s.ident == "diff")
}

/// Whether a call by `p` is of the library's rule `name` (`::diff::__private::sub_slice`).
pub fn is_library_fn(p: &syn::ExprPath, name: &str) -> bool {
    is_library_path(p) && p.path.segments.last().is_some_and(|s| s.ident == name)
}

/// The names along a path (`std::mem::swap` is `["std", "mem", "swap"]`), to match
/// its ending as a slice pattern.
pub fn segment_names(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// Methods whose result never carries a derivative (integers, booleans, strings), so a
/// call of them on an active value is just primal code.
const INACTIVE_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "is_some",
    "is_none",
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_normal",
    "is_sign_positive",
    "is_sign_negative",
    "partial_cmp",
    "total_cmp",
    "to_string",
    "classify",
    "to_bits",
    "count",
    // Booleans and an index of an iterator: `xs.iter().any(|v| *v > t)`.
    "any",
    "all",
    "position",
    "rposition",
    // Where an item is in a sorted slice, and whether it is there.
    "partition_point",
    "binary_search",
    "binary_search_by",
    "binary_search_by_key",
    "contains",
    // A float, piecewise constant: its derivative is zero.
    "div_euclid",
    // The order a sort puts a collection in (indices, `lower/expr.rs`, `sorted`).
    "__diff_sort_order",
];

/// Whether the result of `method` called with `args` arguments (the receiver not
/// counted) never carries a derivative (see [`INACTIVE_METHODS`]), unless the crate
/// defines a method of that name and number of arguments whose result may
/// (`source::defines_carrying_method`: `fn position(&self, s: f64) -> f64`).
pub fn is_inactive_method(method: &syn::Ident, args: usize) -> bool {
    INACTIVE_METHODS.iter().any(|m| method == m)
        && !crate::source::defines_carrying_method(method, args)
}

/// One instruction. Each defines the statement's result values.
#[derive(Clone, Debug)]
pub enum Inst {
    /// The n-th parameter of the function (the receiver is parameter 0 of a method).
    Param(usize),
    /// A constant or an expression with no data dependence on the body's values.
    Const(TokenStream),
    /// An expression the IR does not look into; it uses `uses`, and its tokens refer to
    /// those values through [`Opaque`] placeholders. Never differentiated.
    Opaque(Opaque),
    /// `lhs op rhs`.
    Binary(BinOp, Value, Value),
    /// `-x`.
    Neg(Value),
    /// A call; `args` include the receiver first for methods.
    Call(Callee, Vec<Value>),
    /// `(a, b, ...)`.
    Tuple(Vec<Value>),
    /// `[a, b, ...]` or `vec![a, b, ...]`.
    Array(Vec<Value>, Sequence),
    /// `base.member` (named field or tuple index).
    Field(Value, syn::Member),
    /// `base[index]`.
    Index(Value, Value),
    /// `&x` / `&mut x`: the tangent is the referent's.
    Ref(Value, Borrow),
    /// `*x`.
    Deref(Value),
    /// A call passing `&mut` locals at the given argument positions: results are the
    /// call's value, then the new value of each such local, in order.
    CallMut(Callee, Vec<Value>, Vec<usize>),
    /// `Path { field: value, .. }` (every field given).
    Struct(syn::Path, Vec<(syn::Member, Value)>),
    /// `base` with field `member` replaced by the value (`p.x = v`).
    SetField(Value, syn::Member, Value),
    /// `base` with element `index` replaced by the value (`v[i] = x`).
    SetIndex(Value, Value, Value),
    /// `*p` of a `&mut` parameter on entry: a copy of the pointee.
    Load(Value),
    /// `x as f64` / `x as f32`: a conversion between float types.
    Cast(Value, syn::Type),
    /// `no_derivative(x)`: the value, with its derivative cut.
    NoDerivative(Value),
    /// An operator called in the body (`gradient!(at: x, of: f)`,
    /// `first_derivative!(at: x, of: f)`): its derivative is the second derivative's
    /// action, the operator run on dual numbers.
    Nested(Nested),
    /// Structured `if`: results are the regions' yields.
    If {
        /// The condition (never active: a bool).
        cond: Value,
        /// Region run when the condition holds.
        then_region: RegionId,
        /// Region run otherwise.
        else_region: RegionId,
    },
    /// `match scrutinee { arms }`: results are the arms' regions' yields; each arm's
    /// region takes the pattern's bindings as parameters.
    Match {
        /// The matched value.
        scrutinee: Value,
        /// The arms, in order.
        arms: Vec<MatchArm>,
    },
    /// A counted loop `for pat in iter { body }`: `body` takes the loop-carried values
    /// then the iteration variable as parameters and yields the new carried values.
    /// The results are the carried values after the loop.
    For {
        /// The iterator expression's value (inactive: a range or index iterator).
        iter: Value,
        /// Initial carried values.
        init: Vec<Value>,
        /// Loop body.
        body: RegionId,
        /// Whether the body yields, after the carried values, a flag that stops the loop
        /// (`break`).
        stop: bool,
    },
}

/// An operator nested in a differentiable body.
#[derive(Clone, Debug)]
pub struct Nested {
    /// `gradient` or `first_derivative`.
    pub op: syn::Ident,
    /// The function, verbatim (a path, or a closure reading none of the body's locals).
    pub of: syn::Expr,
    /// The point (an owned copy when `by_ref`).
    pub at: Value,
    /// Whether the point was given by reference (`at: &v`, or a reference parameter):
    /// the operator is then given `&at`.
    pub by_ref: bool,
    /// For several inputs (`gradient!(at: (x, y), of: f)`), how many: the point is
    /// their tuple, given to the operator field by field.
    pub inputs: Option<usize>,
    /// The body's values a closure reads (`|t| critic(&w, t)` reads `w`), the `k`-th
    /// standing for the placeholder `__diff_use_k` in `of`.
    pub captures: Vec<Capture>,
}

/// A value of the body read by the closure of a nested operator. Its derivative is a
/// column of the Hessian of the closure in its parameters and its captures together: the
/// derivatives run the operator on a closure taking the active captures as parameters
/// too.
#[derive(Clone, Debug)]
pub struct Capture {
    /// The value the closure reads, as the primal gives it.
    pub read: Value,
    /// The value the derivatives read: `read`, or for a reference an owned copy of its
    /// referent (`to_owned_point`), which the derivatives keep.
    pub kept: Value,
    /// Whether `read` is a reference: the closure is given `&kept`.
    pub by_ref: bool,
}

impl Nested {
    /// The point `at` as the operator is given it: `at`, `&at`, or its fields in a tuple
    /// (`(at.0, at.1)`) for several inputs; copies of them with `copy` (where the point
    /// is kept for the operator's derivative, which reads it again).
    pub fn point(&self, at: proc_macro2::TokenStream, copy: bool) -> proc_macro2::TokenStream {
        let given = |part: proc_macro2::TokenStream| {
            if copy {
                quote::quote!(::core::clone::Clone::clone(&#part))
            } else {
                part
            }
        };
        match (self.inputs, self.by_ref) {
            (Some(n), _) => {
                let fields = (0..n)
                    .map(syn::Index::from)
                    .map(|i| given(quote::quote!(#at.#i)));
                quote::quote!((#(#fields,)*))
            }
            (None, true) => quote::quote!(&#at),
            (None, false) => given(at),
        }
    }

    /// The function with the captures' placeholders replaced: an active capture
    /// (`active[k]`) by a parameter `__diff_capture_k` the closure takes after its own,
    /// the others by `kept(value)` (by reference for a reference). Without captures, the
    /// function as written.
    pub fn extended(&self, active: &[bool], kept: &dyn Fn(Value) -> TokenStream) -> syn::Expr {
        if self.captures.is_empty() {
            return self.of.clone();
        }
        let parameter = |k: usize| quote::format_ident!("__diff_capture_{k}");
        let replaced = replace_placeholders(self.of.to_token_stream(), self.captures.len(), &|k| {
            let c = &self.captures[k];
            match (active[k], c.by_ref) {
                (true, _) => parameter(k).to_token_stream(),
                (false, true) => {
                    let name = kept(c.kept);
                    quote::quote!(&#name)
                }
                (false, false) => kept(c.kept),
            }
        });
        let mut of: syn::Expr = match syn::parse2(replaced) {
            Ok(of) => of,
            Err(e) => return syn::Expr::Verbatim(e.into_compile_error()),
        };
        if let syn::Expr::Closure(c) = &mut of {
            for k in (0..self.captures.len()).filter(|k| active[*k]) {
                let p = parameter(k);
                c.inputs.push(syn::parse_quote!(#p));
            }
        }
        of
    }

    /// The arguments of [`Self::extended`] taken from the tuple `lifted` of the point's
    /// parts (one, or one per input) and the active captures: fields, by reference where
    /// the function takes a reference.
    pub fn extended_point(&self, lifted: &syn::Ident, active: &[bool]) -> Vec<syn::Expr> {
        let field = |i: usize, by_ref: bool| -> syn::Expr {
            let i = syn::Index::from(i);
            if by_ref {
                syn::parse_quote!(&#lifted.#i)
            } else {
                syn::parse_quote!(#lifted.#i)
            }
        };
        let mut parts: Vec<syn::Expr> = match self.inputs {
            Some(n) => (0..n).map(|i| field(i, false)).collect(),
            None => vec![field(0, self.by_ref)],
        };
        let captured: Vec<bool> = self
            .captures
            .iter()
            .zip(active)
            .filter(|(_, a)| **a)
            .map(|(c, _)| c.by_ref)
            .collect();
        for by_ref in captured {
            parts.push(field(parts.len(), by_ref));
        }
        parts
    }

    /// The point's parts in `base` (a value shaped as the point): its fields, one per
    /// input, or `base` itself.
    pub fn parts_of(&self, base: &TokenStream) -> Vec<TokenStream> {
        match self.inputs {
            Some(n) => (0..n)
                .map(syn::Index::from)
                .map(|i| quote::quote!(#base.#i))
                .collect(),
            None => vec![base.clone()],
        }
    }

    /// The parts of the tuple `e` (a gradient in the point's parts and the active
    /// captures) for the point: the first, or a tuple of one per input.
    pub fn own_parts(&self, e: &syn::Ident) -> TokenStream {
        match self.inputs {
            Some(n) => {
                let fields = (0..n).map(syn::Index::from);
                quote::quote!((#(#e.#fields,)*))
            }
            None => quote::quote!(#e.0),
        }
    }
}

/// One arm of a `match`.
#[derive(Clone, Debug)]
pub struct MatchArm {
    /// The pattern, verbatim.
    pub pat: syn::Pat,
    /// The names the pattern binds, in the order of the region's parameters.
    pub bindings: Vec<syn::Ident>,
    /// The guard, if any.
    pub guard: Option<Opaque>,
    /// The arm's body.
    pub region: RegionId,
}

/// An expression kept verbatim, with the values it uses substituted by name at emission.
#[derive(Clone, Debug)]
pub struct Opaque {
    /// Tokens with placeholders: identifiers `__diff_use_N` stand for `uses[N]`.
    pub tokens: TokenStream,
    /// The values the expression reads.
    pub uses: Vec<Value>,
    /// A short description for diagnostics ("macro call", "cast", ...).
    pub what: String,
    /// For a macro call, the macro's name (`println`, `vec`).
    pub macro_name: Option<String>,
    /// Whether the result can never carry a derivative (an integer cast, a comparison).
    pub inactive: bool,
    /// Whether the result holds only integers and booleans, whatever it reads (an
    /// integer cast, a comparison, `!`).
    pub discrete: bool,
}

/// The primitive integer types.
pub const INTEGER_TYPES: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

/// The value of `v` when it is an integer literal (`1`, `2usize`).
pub fn integer_literal(func: &Function, v: Value) -> Option<i64> {
    match func.def_inst(v) {
        Some(Inst::Const(t)) => syn::parse2::<syn::LitInt>(t.clone())
            .ok()?
            .base10_parse::<i64>()
            .ok(),
        _ => None,
    }
}

/// The placeholder identifier for the n-th use of an opaque expression.
pub fn placeholder(n: usize) -> String {
    format!("__diff_use_{n}")
}

/// `ts` with the placeholders of its `uses` uses replaced, the `n`-th by `by(n)` in
/// parentheses.
pub fn replace_placeholders(
    ts: TokenStream,
    uses: usize,
    by: &dyn Fn(usize) -> TokenStream,
) -> TokenStream {
    ts.into_iter()
        .map(|tt| match tt {
            proc_macro2::TokenTree::Group(g) => {
                let inner = replace_placeholders(g.stream(), uses, by);
                let mut ng = proc_macro2::Group::new(g.delimiter(), inner);
                ng.set_span(g.span());
                proc_macro2::TokenTree::Group(ng)
            }
            proc_macro2::TokenTree::Ident(id) => {
                let s = id.to_string();
                match (0..uses).find(|n| placeholder(*n) == s) {
                    Some(n) => proc_macro2::TokenTree::Group(proc_macro2::Group::new(
                        proc_macro2::Delimiter::Parenthesis,
                        by(n),
                    )),
                    None => proc_macro2::TokenTree::Ident(id),
                }
            }
            other => other,
        })
        .collect()
}

/// A statement: an instruction and the values it defines.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// The defined values (one for most instructions; several for `If`/`For`).
    pub results: Vec<Value>,
    /// The instruction.
    pub inst: Inst,
    /// The user's tokens this statement came from.
    pub span: Span,
}

/// A straight-line sequence of statements with parameters and yielded values.
#[derive(Clone, Debug, Default)]
pub struct Region {
    /// Values bound on entry (loop-carried values, loop variables).
    pub params: Vec<Value>,
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
    /// Values passed to the join point (or the function's result, for the entry region).
    pub yields: Vec<Value>,
}

/// A whole lowered function body.
#[derive(Clone, Debug, Default)]
pub struct Function {
    /// Value arena.
    pub values: Vec<ValueData>,
    /// Region arena; region 0 is the entry, whose single yield is the result.
    pub regions: Vec<Region>,
    /// Number of parameters (receiver included).
    pub param_count: usize,
    /// The `&mut` parameters, in the order their final pointees follow the result in the
    /// entry region's yields.
    pub mutated: Vec<usize>,
    /// The parameters taken by reference.
    pub by_ref: Vec<usize>,
    /// The parameters that are arrays (`[T; N]`, `&[T; N]`), whose tangent is an array.
    pub arrays: Vec<usize>,
    /// The parameters whose type is an array taken by value (`x: [f64; 8]`), whether
    /// differentiated or not.
    pub arrays_by_value: Vec<usize>,
    /// The parameters that are collections of arrays (`&[[T; N]]`, `Vec<[T; N]>`,
    /// `[[T; N]; M]`), whose elements' tangents are arrays.
    pub array_elements: Vec<usize>,
    /// The parameters whose type is a primitive integer taken by value (`n: usize`).
    pub integers: Vec<usize>,
    /// The parameters whose type holds only integers and booleans, by reference or in
    /// collections (`idx: &mut Vec<usize>`, `mask: &[bool]`): never a derivative, what a
    /// call writes into them included.
    pub discrete: Vec<usize>,
    /// The fields of parameters' structs whose type holds only integers and booleans
    /// (`#[no_derivative] n: usize` of `&self`): `(parameter, field)`.
    pub discrete_fields: Vec<(usize, String)>,
    /// Whether the function is generic over its float type (`T: Float`): its companions
    /// also run on dual numbers (second order), where a reduction loop's seed is not a
    /// float to scale by (`fused_loops.rs`).
    pub generic_scalar: bool,
    /// Whether the crate implements arithmetic operators for types of its own: the result
    /// of arithmetic differentiated by the rules of floats is then checked to be a float
    /// (`emit/primal.rs`), in case an operand is such a type the lowering did not see.
    pub checks_float_arithmetic: bool,
    /// Whether the crate's source is known to implement no arithmetic operator for a type
    /// of its own: a value meeting a float in arithmetic is then a float.
    pub no_arithmetic_of_its_own: bool,
    /// The method calls (by their first result) whose receiver the lowering knows is a
    /// struct of the crate, with the struct's name, operators on such a struct (`p * k`)
    /// among them: a call of a method its source shows without a derivative is refused
    /// at the call (`check.rs`).
    pub method_receivers: Vec<(Value, String)>,
    /// The structs with arithmetic operators of their own that the body holds a value of
    /// or calls an operator of: second order declines such a body (`lifting.rs`) unless
    /// each has a dual twin (its operators all differentiable, `source::Seen::twin`),
    /// since its fields are `f64`s, which cannot hold dual numbers.
    pub operator_structs: Vec<String>,
    /// The structs a dual companion builds through a path of modules (`dist::P { .. }`,
    /// rewritten to their twins' names alone, `__DiffDualP { .. }`), as written: their
    /// twins are named through local aliases of the paths (`twin::aliases`), since a
    /// re-export of `P` by name does not bring its twin.
    pub twin_paths: Vec<syn::Path>,
    /// Where each value is defined: the region and the statement's index in it, indexed
    /// by value (`None` for region parameters).
    defs: Vec<Option<(RegionId, usize)>>,
}

impl Function {
    /// A new value.
    pub fn new_value(&mut self, name: Option<String>, span: Span) -> Value {
        self.values.push(ValueData { name, span });
        Value(self.values.len() as u32 - 1)
    }

    /// Appends a statement to region `r`.
    pub fn push_stmt(&mut self, r: RegionId, stmt: Stmt) {
        let index = self.region(r).stmts.len();
        for v in &stmt.results {
            let slot = v.0 as usize;
            if self.defs.len() <= slot {
                self.defs.resize(slot + 1, None);
            }
            self.defs[slot] = Some((r, index));
        }
        self.region_mut(r).stmts.push(stmt);
    }

    /// Recomputes where each value is defined, after statements were inserted into
    /// regions directly.
    pub fn reindex(&mut self) {
        self.defs = vec![None; self.values.len()];
        for (r, region) in self.regions.iter().enumerate() {
            for (i, stmt) in region.stmts.iter().enumerate() {
                for v in &stmt.results {
                    self.defs[v.0 as usize] = Some((RegionId(r as u32), i));
                }
            }
        }
    }

    /// The `for` statement whose body is region `body`.
    pub fn loop_of(&self, body: RegionId) -> Option<&Stmt> {
        self.regions
            .iter()
            .flat_map(|r| r.stmts.iter())
            .find(|s| matches!(s.inst, Inst::For { body: b, .. } if b == body))
    }

    /// The statement defining `v` (`None` for a region parameter).
    pub fn def(&self, v: Value) -> Option<&Stmt> {
        let (r, i) = (*self.defs.get(v.0 as usize)?)?;
        self.region(r).stmts.get(i)
    }

    /// The value of parameter `i`, bound at the start of the entry region.
    pub fn param_value(&self, i: usize) -> Option<Value> {
        self.region(self.entry())
            .stmts
            .iter()
            .find(|s| matches!(s.inst, Inst::Param(j) if j == i))
            .map(|s| s.results[0])
    }

    /// Whether `v` is parameter `i` itself, or a reference to it or through one (`self`
    /// of a `&self` method read as `*self`).
    pub fn is_param(&self, v: Value, i: usize) -> bool {
        match self.def(v).map(|s| &s.inst) {
            Some(Inst::Param(j)) => *j == i,
            Some(Inst::Ref(a, _) | Inst::Deref(a) | Inst::Load(a)) => self.is_param(*a, i),
            _ => false,
        }
    }

    /// Whether `v` is a region's parameter bound by a pattern: a loop's item or a
    /// binding of a `match` arm (not a value a loop carries). Its type may be a
    /// reference (`for c in TABLE.iter()`, `Some(w) = xs.first()`).
    pub fn is_bound_param(&self, v: Value) -> bool {
        if self.def(v).is_some() {
            return false;
        }
        let carried = self
            .regions
            .iter()
            .flat_map(|r| &r.stmts)
            .any(|s| match &s.inst {
                Inst::For { init, body, .. } => {
                    self.region(*body).params[..init.len()].contains(&v)
                }
                _ => false,
            });
        !carried && self.regions.iter().any(|r| r.params.contains(&v))
    }

    /// Where `v` is defined, as (region, 1 + statement index); a region's parameters are
    /// at 0 in it.
    pub fn position(&self, v: Value) -> (u32, usize) {
        match self.defs.get(v.0 as usize).copied().flatten() {
            Some((r, i)) => (r.0, i + 1),
            None => {
                let r = self.regions.iter().position(|r| r.params.contains(&v));
                (r.unwrap_or(0) as u32, 0)
            }
        }
    }

    /// The instruction defining `v`, when `v` is its statement's first result.
    pub fn def_inst(&self, v: Value) -> Option<&Inst> {
        self.def(v)
            .filter(|s| s.results.first() == Some(&v))
            .map(|s| &s.inst)
    }

    /// How many times `v` is read: as an operand anywhere, and as what a region yields.
    pub fn uses(&self, v: Value) -> usize {
        self.regions
            .iter()
            .map(|r| {
                let operands = r.stmts.iter().flat_map(|s| s.inst.operands());
                operands
                    .chain(r.yields.iter().copied())
                    .filter(|u| *u == v)
                    .count()
            })
            .sum()
    }

    /// Removes the one-result statements `droppable` accepts whose result nothing reads.
    pub fn drop_unread(&mut self, droppable: impl Fn(&Stmt) -> bool) {
        let unread: Vec<Value> = self
            .regions
            .iter()
            .flat_map(|r| &r.stmts)
            .filter(|s| s.results.len() == 1 && droppable(s))
            .map(|s| s.results[0])
            .filter(|v| self.uses(*v) == 0)
            .collect();
        if unread.is_empty() {
            return;
        }
        for region in &mut self.regions {
            region
                .stmts
                .retain(|s| !(s.results.len() == 1 && unread.contains(&s.results[0])));
        }
        self.reindex();
    }

    /// A new empty region.
    pub fn new_region(&mut self) -> RegionId {
        self.regions.push(Region::default());
        RegionId(self.regions.len() as u32 - 1)
    }

    /// The region with this id.
    pub fn region(&self, id: RegionId) -> &Region {
        &self.regions[id.0 as usize]
    }

    /// The region with this id, mutably.
    pub fn region_mut(&mut self, id: RegionId) -> &mut Region {
        &mut self.regions[id.0 as usize]
    }

    /// The entry region.
    pub fn entry(&self) -> RegionId {
        RegionId(0)
    }

    /// Data about a value.
    pub fn value(&self, v: Value) -> &ValueData {
        &self.values[v.0 as usize]
    }
}

impl Inst {
    /// The values this instruction reads directly (not those read inside nested regions).
    pub fn operands(&self) -> Vec<Value> {
        match self {
            Inst::Param(_) | Inst::Const(_) => vec![],
            Inst::Opaque(o) => o.uses.clone(),
            Inst::Binary(_, a, b) | Inst::Index(a, b) => vec![*a, *b],
            Inst::Neg(a)
            | Inst::Field(a, _)
            | Inst::Ref(a, _)
            | Inst::Deref(a)
            | Inst::Cast(a, _)
            | Inst::NoDerivative(a) => vec![*a],
            Inst::Nested(n) => {
                let mut v = vec![n.at];
                for c in &n.captures {
                    v.push(c.read);
                    if c.kept != c.read {
                        v.push(c.kept);
                    }
                }
                v
            }
            Inst::Call(_, args)
            | Inst::CallMut(_, args, _)
            | Inst::Tuple(args)
            | Inst::Array(args, _) => args.clone(),
            Inst::Load(a) => vec![*a],
            Inst::Struct(_, fields) => fields.iter().map(|(_, v)| *v).collect(),
            Inst::SetField(b, _, v) => vec![*b, *v],
            Inst::SetIndex(b, i, v) => vec![*b, *i, *v],
            Inst::If { cond, .. } => vec![*cond],
            Inst::Match { scrutinee, arms } => {
                let mut v = vec![*scrutinee];
                for arm in arms {
                    v.extend(arm.guard.iter().flat_map(|g| g.uses.iter().copied()));
                }
                v
            }
            Inst::For { iter, init, .. } => {
                let mut v = vec![*iter];
                v.extend(init);
                v
            }
        }
    }

    /// The regions of a branching instruction (`if`, `match`), one per predecessor.
    pub fn branches(&self) -> Option<Vec<RegionId>> {
        match self {
            Inst::If {
                then_region,
                else_region,
                ..
            } => Some(vec![*then_region, *else_region]),
            Inst::Match { arms, .. } => Some(arms.iter().map(|a| a.region).collect()),
            _ => None,
        }
    }

    /// Nested regions of a control-flow instruction.
    pub fn regions(&self) -> Vec<RegionId> {
        if let Some(b) = self.branches() {
            return b;
        }
        match self {
            Inst::If {
                then_region,
                else_region,
                ..
            } => vec![*then_region, *else_region],
            Inst::For { body, .. } => vec![*body],
            _ => vec![],
        }
    }
}
