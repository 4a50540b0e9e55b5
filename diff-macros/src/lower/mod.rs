//! Lowering: a Rust function body (syn) to the SSA IR.
//!
//! Variables are resolved while lowering: a `let` binds a name to a value, an assignment
//! rebinds it, so every IR value is defined once. Expressions the IR does not model are
//! kept as [`Opaque`](crate::ir::Opaque) token trees, or refused with an error at the
//! user's span when they cannot be kept.

mod closure;
mod control;
mod diverge;
mod env;
mod exits;
mod for_each;
pub(crate) mod iterators;
mod matching;
pub(crate) use crate::ir::placeholder;
mod destructuring;
mod expr;
pub(crate) mod opaque;
mod pattern;
mod place;
mod question;

#[cfg(test)]
mod tests;

use crate::errors::Errors;
use crate::ir::{Callee, Function, Inst, RegionId, Stmt, Value};
use proc_macro2::Span;
use std::collections::HashMap;

/// The result of lowering a body.
pub struct Lowered {
    /// The IR.
    pub func: Function,
    /// Items declared inside the body (`const`, `fn`, `use`), re-emitted verbatim.
    pub items: Vec<syn::Item>,
}

/// What the macro knows of the types of the function and the crate: the parameters whose
/// type is a struct of the crate, with the type's name, the operator methods implemented
/// for those types, and the function's result type.
#[derive(Clone, Copy, Default)]
pub struct Structs<'a> {
    /// `(parameter index, type name)`.
    pub params: &'a [(usize, String)],
    /// `(type name, method, marked)`, `("V", "sub", true)`.
    pub operators: &'a [crate::source::OperatorMethod],
    /// `(type, field, field's type)` for the fields whose type has operators.
    pub fields: &'a [(String, String, String)],
    /// `(parameter index, element type)` for the parameters that are collections of
    /// such structs (`&[V2]`, `Vec<V2>`, `[V2; 3]`): their elements are structs.
    pub elements: &'a [(usize, String)],
    /// The methods a trait of the crate marks #[differentiable] (`Callee::Method`'s
    /// `of_trait`).
    pub trait_methods: &'a [String],
    /// `(type or "" for a free function, function, returned struct)`: what a call
    /// returns (`V2::new(..)`, `p.scaled(k)`, `make(k)`).
    pub returns: &'a [(String, String, String)],
    /// The function's result type, as declared.
    pub output: Option<&'a syn::Type>,
    /// The parameters that are arrays (`[T; N]`, `&[T; N]`).
    pub arrays: &'a [usize],
    /// The names of the parameters of a generic type that is not a scalar, or of an
    /// `impl Trait` type (`coefficients: I`, `I: IntoIterator<Item = f64>`).
    pub iterables: &'a [String],
}

/// Lowers `body` with the given parameter patterns (the receiver, if any, first as `self`).
///
/// `scalar_params` are the function's generic type parameters bounded by a float trait:
/// `T::sin(x)` is then a method call on the scalar.
///
/// `ref_params` name the parameters taken by reference: iterating one (`for x in xs`)
/// yields references.
///
/// `structs` gives, for the parameters whose type is a struct of the crate (its
/// definition read), the type's name.
pub fn lower_body(
    params: &[syn::Pat],
    body: &syn::Block,
    scalar_params: Vec<String>,
    ref_params: Vec<String>,
    mut_params: Vec<usize>,
    structs: Structs<'_>,
    errors: &mut Errors,
) -> Option<Lowered> {
    let Structs {
        params: structs,
        operators,
        fields,
        elements,
        trait_methods,
        returns,
        output,
        arrays,
        iterables,
    } = structs;
    // (Invisible groups are gone already: `expand` and the operators' argument parser
    // take them out, `parse/ungroup.rs`.)
    if let Some(e) = conditional_compilation(body) {
        errors.push(e);
        return None;
    }
    let mut cx = Lowerer::new();
    cx.scalar_params = scalar_params;
    cx.ref_params = ref_params.clone();
    cx.struct_types = structs.iter().map(|(_, t)| t.clone()).collect();
    cx.operators = operators.to_vec();
    cx.struct_fields = fields.to_vec();
    cx.trait_methods = trait_methods.to_vec();
    cx.returns = returns.to_vec();
    cx.func.arrays = arrays.to_vec();
    cx.iterables = iterables.to_vec();
    for (i, pat) in params.iter().enumerate() {
        // (A closure's parameter is typed in its pattern, `p: &[f64]`.)
        if let Some(name) = pat_name(pat) {
            if ref_params.iter().any(|r| name == r) {
                cx.func.by_ref.push(i);
            }
        }
        let v = cx.emit(Inst::Param(i), pat_span(pat), None);
        if let Err(e) = cx.bind_pattern(pat, v) {
            errors.push(e);
            return None;
        }
        if let Some(var) = pat_name(pat).and_then(|n| cx.binding(&n.to_string())) {
            if let Some((_, ty)) = structs.iter().find(|(k, _)| *k == i) {
                cx.note_operator_struct(ty);
                cx.struct_vars.insert(var, ty.clone());
            }
            if let Some((_, ty)) = elements.iter().find(|(k, _)| *k == i) {
                cx.struct_collections.insert(var, ty.clone());
            }
        }
        if let (true, syn::Pat::Ident(p)) = (mut_params.contains(&i), pat) {
            // The pointee of a `&mut` parameter is a variable `*p` of the body.
            let name = format!("*{}", p.ident);
            let load = cx.emit(
                Inst::Load(v),
                p.ident.span(),
                Some(format!("{}_in", p.ident)),
            );
            cx.bind(name, load);
            cx.func.mutated.push(i);
            cx.mut_params.push(v);
        }
    }
    cx.func.param_count = params.len();
    let looped = for_each::rewrite(body);
    let body = looped.as_ref().unwrap_or(body);
    let rewritten = exits::rewrite(body, output);
    let body = rewritten.as_ref().unwrap_or(body);
    let result = match cx.lower_block_value(body) {
        Ok(v) => v,
        Err(e) => {
            cx.errors.push(e);
            return cx.finish(errors);
        }
    };
    let mut yields = vec![result];
    for i in cx.func.mutated.clone() {
        if let syn::Pat::Ident(p) = &params[i] {
            yields.push(cx.lookup(&format!("*{}", p.ident)).expect("bound on entry"));
        }
    }
    let entry = cx.func.entry();
    cx.func.region_mut(entry).yields = yields;
    cx.finish(errors)
}

/// The body as the lowering reads it: `?` as a `match` (`question.rs`), drains as
/// `Vec`s, iterators held in variables written where they are consumed, and sums and
/// products given the type their value takes (`iterators.rs`). `None` when the body is
/// read as written.
pub(crate) fn prepare(block: &syn::Block, output: Option<&syn::Type>) -> Option<syn::Block> {
    let tried = question::rewrite(block, output);
    let block = tried.as_ref().unwrap_or(block);
    let drained = iterators::drains_as_vecs(block);
    let block = drained.as_ref().unwrap_or(block);
    let inlined = iterators::inline_iterator_variables(block);
    let reduced = iterators::typed_reductions(inlined.as_ref().unwrap_or(block), output);
    reduced.or(inlined).or(drained).or(tried)
}

/// The name a pattern binds when it is a name (`x`, `mut x`, `x: T`).
pub(crate) fn pat_name(p: &syn::Pat) -> Option<&syn::Ident> {
    match p {
        syn::Pat::Ident(p) => Some(&p.ident),
        syn::Pat::Type(t) => pat_name(&t.pat),
        _ => None,
    }
}

fn pat_span(p: &syn::Pat) -> Span {
    syn::spanned::Spanned::span(p)
}

/// State of one lowering.
pub(crate) struct Lowerer {
    pub(crate) func: Function,
    /// What names mean here, and the variables' values.
    pub(crate) env: env::Env,
    /// The name of each variable, by its number.
    var_names: Vec<String>,
    /// The type a `let` gave a variable (`let mut a: [f64; 3] = ..`), which literals
    /// later assigned to it take.
    declared: HashMap<env::Var, syn::Type>,
    /// The region statements are appended to.
    current: RegionId,
    items: Vec<syn::Item>,
    /// Generic type parameters that are scalars.
    scalar_params: Vec<String>,
    /// Parameters taken by reference.
    pub(crate) ref_params: Vec<String>,
    /// Parameters of a generic or `impl Trait` type that is not a scalar: iterated as
    /// they are (`Structs::iterables`).
    pub(crate) iterables: Vec<String>,
    /// Set when the statements lowered last exit early (`return`, `break`, `continue`):
    /// what follows them in their sequence is unreachable.
    pub(crate) diverged: bool,
    /// The loops being lowered, innermost last.
    pub(crate) loops: Vec<LoopCx>,
    /// Whether an early exit here is a statement whose continuation is absorbed (true),
    /// or inside an expression whose value later statements use (false).
    pub(crate) exit_ok: bool,
    /// Closures bound with `let name = |..| ..`.
    closures: Vec<closure::LocalClosure>,
    /// The values of the `&mut` parameters (the references), whose pointees `*p` are
    /// variables of the body.
    pub(crate) mut_params: Vec<Value>,
    /// Every assignment made so far: what a loop body assigns is what the loop carries.
    assignments: Vec<env::Var>,
    /// The statements refused so far.
    pub(crate) errors: Errors,
    /// How many loops' first passes are being lowered (their IR is thrown away).
    pub(crate) probing: usize,
    /// The names of the crate's struct types that parameters have (`V2` for `p: V2`).
    struct_types: Vec<String>,
    /// The variables holding such a struct, with its name: arithmetic on them calls
    /// the type's operator methods (`p + q` is `p.add(q)`), not the rules of floats.
    struct_vars: HashMap<env::Var, String>,
    /// The operator methods implemented for those types, and whether each is marked
    /// #[differentiable] (`("V", "sub", true)`).
    operators: Vec<crate::source::OperatorMethod>,
    /// `(type, field, field's type)` for the fields of the parameters' structs whose
    /// type has operators: `self.pos + self.vel * dt` calls them.
    struct_fields: Vec<(String, String, String)>,
    /// The methods a trait of the crate marks #[differentiable].
    trait_methods: Vec<String>,
    /// What calls return, see [`Structs::returns`].
    returns: Vec<(String, String, String)>,
    /// The variables holding collections of such structs (`&[V2]`), with the element's
    /// name: `points[i]` is a struct.
    struct_collections: HashMap<env::Var, String>,
    /// How many `no_derivative(..)` calls the expression being lowered is inside.
    pub(crate) underived: usize,
    /// How deep the expression being lowered is nested (`lower_expr` refuses past
    /// [`MAX_DEPTH`] rather than run out of stack).
    pub(crate) depth: usize,
    /// How deep `struct_type_of` is in the expression it types (it gives up past
    /// [`MAX_DEPTH`]: arithmetic that deep is taken for floats).
    pub(crate) typing_depth: std::cell::Cell<usize>,
}

/// The deepest expression the lowering descends into (a method call counting twice): a
/// chain of 500 additions or 250 method calls, well within the stack rustc gives a
/// procedural macro (which ran out at about 650 and 450).
pub(crate) const MAX_DEPTH: usize = 500;

/// What lowering tracks about an enclosing loop.
#[derive(Default)]
pub(crate) struct LoopCx {
    /// Whether the body contains a `break`.
    pub(crate) has_break: bool,
}

impl Lowerer {
    fn new() -> Self {
        let mut func = Function::default();
        let entry = func.new_region();
        Lowerer {
            func,
            env: env::Env::new(),
            var_names: Vec::new(),
            declared: HashMap::new(),
            current: entry,
            items: Vec::new(),
            scalar_params: Vec::new(),
            ref_params: Vec::new(),
            iterables: Vec::new(),
            diverged: false,
            loops: Vec::new(),
            exit_ok: true,
            closures: Vec::new(),
            mut_params: Vec::new(),
            assignments: Vec::new(),
            errors: Errors::default(),
            probing: 0,
            struct_types: Vec::new(),
            struct_vars: HashMap::new(),
            operators: Vec::new(),
            underived: 0,
            depth: 0,
            typing_depth: std::cell::Cell::new(0),
            struct_collections: HashMap::new(),
            struct_fields: Vec::new(),
            trait_methods: Vec::new(),
            returns: Vec::new(),
        }
    }

    /// A method call's callee: `of_trait` when a trait of the crate marks the method;
    /// `user` when it is named like a float method with a rule, but called on a struct
    /// of the crate (`receiver_struct`) and the crate defines a method of that name and
    /// number of arguments (`args`) whose result may carry a derivative.
    pub(crate) fn method_callee(
        &self,
        method: syn::Ident,
        turbofish: Option<syn::AngleBracketedGenericArguments>,
        receiver_struct: bool,
        args: usize,
    ) -> Callee {
        let of_trait = self.trait_methods.iter().any(|m| method == m);
        let user = receiver_struct
            && crate::lifting::is_rule(&method)
            && crate::source::defines_carrying_method(&method, args);
        Callee::Method {
            method,
            turbofish,
            of_trait,
            user,
        }
    }

    fn finish(mut self, errors: &mut Errors) -> Option<Lowered> {
        exits::drop_unread_placeholders(&mut self.func);
        self.drop_unread_closures();
        let ok = self.errors.is_empty();
        errors.append(self.errors);
        ok.then_some(Lowered {
            func: self.func,
            items: self.items,
        })
    }

    /// Drops the bindings of closures bound in the body whose every call was inlined
    /// (`let sq = |t| t * t; sq(x)`): nothing reads them, and a closure never called
    /// leaves its parameters' types open (`|t| t * t` does not compile alone).
    fn drop_unread_closures(&mut self) {
        let closures: Vec<Value> = self.closures.iter().filter_map(|c| c.value()).collect();
        self.func
            .drop_unread(|s| matches!(s.inst, Inst::Opaque(_)) && closures.contains(&s.results[0]));
    }

    /// Appends a one-result statement to the current region.
    pub(crate) fn emit(&mut self, inst: Inst, span: Span, name: Option<String>) -> Value {
        let v = self.func.new_value(name, span);
        self.push(Stmt {
            results: vec![v],
            inst,
            span,
        });
        v
    }

    pub(crate) fn push(&mut self, stmt: Stmt) {
        let r = self.current;
        self.func.push_stmt(r, stmt);
    }

    /// A `()` value, for blocks and statements without a value.
    pub(crate) fn unit(&mut self, span: Span) -> Value {
        self.emit(Inst::Const(quote::quote!(())), span, None)
    }
}

/// The first `#[cfg(..)]` on a statement, a `match` arm or a struct literal's field of
/// `body`: which of them rustc compiles is decided after the macro runs, so the
/// derivatives cannot follow it (they would differentiate code the function does not
/// run). An item in the body keeps its `cfg`, as it is emitted as written.
fn conditional_compilation(body: &syn::Block) -> Option<syn::Error> {
    struct Find(Option<syn::Error>);
    impl Find {
        fn check(&mut self, attrs: &[syn::Attribute]) {
            if self.0.is_some() {
                return;
            }
            if let Some(a) = attrs.iter().find(|a| a.path().is_ident("cfg")) {
                self.0 = Some(syn::Error::new_spanned(
                    a,
                    "`#[cfg(..)]` inside a differentiable body: the macro runs before rustc decides what it keeps, so the derivatives would follow code the function may not run; write `if cfg!(..) { .. }`, or move the code into a helper function",
                ));
            }
        }
    }
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_stmt(&mut self, s: &'a syn::Stmt) {
            match s {
                syn::Stmt::Local(l) => self.check(&l.attrs),
                syn::Stmt::Macro(m) => self.check(&m.attrs),
                syn::Stmt::Expr(e, _) => self.check(expr_attrs(e)),
                syn::Stmt::Item(_) => return,
            }
            syn::visit::visit_stmt(self, s);
        }
        fn visit_arm(&mut self, a: &'a syn::Arm) {
            self.check(&a.attrs);
            syn::visit::visit_arm(self, a);
        }
        fn visit_field_value(&mut self, f: &'a syn::FieldValue) {
            self.check(&f.attrs);
            syn::visit::visit_field_value(self, f);
        }
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            self.check(expr_attrs(e));
            syn::visit::visit_expr(self, e);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
        use syn::Expr as E;
        match e {
            E::Block(b) => &b.attrs,
            E::Macro(m) => &m.attrs,
            E::Call(c) => &c.attrs,
            E::MethodCall(m) => &m.attrs,
            E::Assign(a) => &a.attrs,
            E::Binary(b) => &b.attrs,
            E::If(i) => &i.attrs,
            E::ForLoop(f) => &f.attrs,
            E::While(w) => &w.attrs,
            E::Loop(l) => &l.attrs,
            E::Match(m) => &m.attrs,
            E::Unsafe(u) => &u.attrs,
            E::Path(p) => &p.attrs,
            E::Lit(l) => &l.attrs,
            E::Paren(p) => &p.attrs,
            E::Tuple(t) => &t.attrs,
            E::Array(a) => &a.attrs,
            E::Struct(s) => &s.attrs,
            E::Return(r) => &r.attrs,
            E::Unary(u) => &u.attrs,
            E::Field(f) => &f.attrs,
            E::Index(i) => &i.attrs,
            E::Closure(c) => &c.attrs,
            _ => &[],
        }
    }
    let mut find = Find(None);
    syn::visit::Visit::visit_block(&mut find, body);
    find.0
}
