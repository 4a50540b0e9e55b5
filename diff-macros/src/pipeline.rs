//! The stages every differentiated body goes through, in order: lowering to the IR,
//! activity, the refusals of `check.rs`, and the linear-map analysis. Run by
//! `differentiable.rs` for a function and by `operators.rs` for a closure literal; the
//! emitters (`emit/`) only read what this produces.
use crate::analysis::activity::Activity;
use crate::errors::Errors;
use crate::ir::Function;
use crate::linear_map::LinearMaps;
use crate::parse::signature::FnSig;
use crate::{check, lower};

/// A body ready to emit: its IR, activity and linear maps, each computed once.
pub struct Analyzed {
    /// The IR.
    pub func: Function,
    /// Items declared inside the body, re-emitted verbatim.
    pub items: Vec<syn::Item>,
    /// Which values carry a derivative.
    pub act: Activity,
    /// What each region's linear map holds.
    pub maps: LinearMaps,
    /// The undecided parameters left out of the derivative.
    pub left_out: Vec<usize>,
}

impl Analyzed {
    /// The activity and linear maps of the same IR differentiated with respect to
    /// `wrt` instead (a subset of the parameters it was checked with).
    pub fn with_respect_to(&self, wrt: &[usize]) -> (Activity, LinearMaps) {
        let act = Activity::analyze(&self.func, wrt);
        let maps = LinearMaps::analyze(&self.func, &act);
        (act, maps)
    }
}

/// What a body is, besides its statements.
pub struct Body<'a> {
    /// The parameters' patterns (the receiver, if any, first as `self`).
    pub params: Vec<syn::Pat>,
    /// The body.
    pub block: &'a syn::Block,
    /// Generic type parameters bounded by a float trait.
    pub scalars: Vec<String>,
    /// Parameters taken by reference.
    pub by_ref: Vec<String>,
    /// Indices of the `&mut` parameters.
    pub mutated: Vec<usize>,
    /// Indices of the differentiated parameters.
    pub wrt: Vec<usize>,
    /// Those of them left out if no derivative flows from them ([`FnSig::undecided`]).
    pub undecided: Vec<usize>,
    /// The parameters that are arrays.
    pub arrays: Vec<usize>,
    /// The parameters whose type is an array taken by value.
    pub arrays_by_value: Vec<usize>,
    /// The parameters that are collections of arrays.
    pub array_elements: Vec<usize>,
    /// The parameters whose type is a primitive integer taken by value.
    pub integers: Vec<usize>,
    /// The parameters whose type holds only integers and booleans (`&mut Vec<usize>`).
    pub discrete: Vec<usize>,
    /// The names of the parameters of a generic or `impl Trait` type that is not a
    /// scalar (`coefficients: I` with `I: IntoIterator<Item = f64>`): iterated as they
    /// are, never indexed.
    pub iterables: Vec<String>,
    /// The fields of parameters' structs of such types: `(parameter, field)`.
    pub discrete_fields: Vec<(usize, String)>,
    /// The result type, when the function has one.
    pub output: Option<syn::Type>,
    /// The parameters whose type is a struct of the crate (its definition read), with
    /// the type's name: arithmetic on them calls the type's operators.
    pub structs: Vec<(usize, String)>,
    /// The operator methods implemented for those types: arithmetic calls them, and
    /// calling an unmarked one is refused at the operator.
    pub operators: Vec<crate::source::OperatorMethod>,
    /// The fields of those types whose type has arithmetic operators of the crate:
    /// `(type, field, field's type)` (`("Particle", "pos", "V2")`).
    pub struct_fields: Vec<(String, String, String)>,
    /// The parameters that are collections (`&[T]`, `Vec<T>`, `[T; N]`) of such structs,
    /// with the element type's name.
    pub struct_elements: Vec<(usize, String)>,
    /// The methods a trait of the crate marks #[differentiable]: called on a receiver
    /// that carries no derivative, through their constant-receiver companions.
    pub trait_methods: Vec<String>,
    /// What the calls of the body return, when that is a struct of those
    /// (`("V2", "new", "V2")`, `("", "make", "V2")`).
    pub returns: Vec<(String, String, String)>,
    /// Whether the crate's source implements arithmetic for a type of its own
    /// ([`Function::checks_float_arithmetic`]).
    pub checks_float_arithmetic: bool,
    /// Whether the crate's source is read and implements no arithmetic of its own
    /// ([`Function::no_arithmetic_of_its_own`]).
    pub no_arithmetic_of_its_own: bool,
}

impl<'a> Body<'a> {
    /// The body of a function with signature `sig`.
    pub fn of(sig: &FnSig, block: &'a syn::Block) -> Body<'a> {
        Body {
            params: sig.params.iter().map(|p| p.pat.clone()).collect(),
            block,
            scalars: sig.roles.scalars.clone(),
            by_ref: sig
                .params
                .iter()
                .filter(|p| p.by_ref)
                .map(|p| p.ident.to_string())
                .collect(),
            mutated: sig.mutated(),
            output: syn::parse2::<syn::Type>(sig.output.clone())
                .ok()
                .filter(|t| !matches!(t, syn::Type::Tuple(t) if t.elems.is_empty())),
            wrt: sig.wrt(),
            undecided: sig.undecided(),
            arrays: (0..sig.params.len())
                .filter(|i| {
                    sig.params[*i]
                        .tangent
                        .as_ref()
                        .is_some_and(|t| t.to_string().starts_with('['))
                })
                .collect(),
            array_elements: (0..sig.params.len())
                .filter(|i| {
                    sig.params[*i].tangent.as_ref().is_some_and(|t| {
                        let t = t.to_string();
                        t.starts_with(":: std :: vec :: Vec < [") || t.starts_with("[[")
                    })
                })
                .collect(),
            arrays_by_value: (0..sig.params.len())
                .filter(|i| {
                    let decl = sig.params[*i].decl.to_string();
                    !sig.params[*i].by_ref
                        && decl
                            .split_once(':')
                            .is_some_and(|(_, ty)| ty.trim_start().starts_with('['))
                })
                .collect(),
            integers: (0..sig.params.len())
                .filter(|i| {
                    let decl = sig.params[*i].decl.to_string();
                    decl.split_once(':')
                        .is_some_and(|(_, ty)| crate::ir::INTEGER_TYPES.contains(&ty.trim()))
                })
                .collect(),
            iterables: sig
                .params
                .iter()
                .filter(|p| {
                    p.declared_type()
                        .is_some_and(|t| crate::parse::types::iterated_as_it_is(&t, &sig.roles))
                })
                .filter_map(|p| match &p.pat {
                    syn::Pat::Ident(i) => Some(i.ident.to_string()),
                    _ => None,
                })
                .collect(),
            discrete: (0..sig.params.len())
                .filter(|i| {
                    sig.declared_type(*i)
                        .is_some_and(|t| crate::parse::types::only_discrete(&t))
                })
                .collect(),
            discrete_fields: sig
                .param_fields
                .iter()
                .enumerate()
                .flat_map(|(i, fields)| {
                    fields
                        .iter()
                        .filter(|(_, ty)| crate::parse::types::only_discrete(ty))
                        .map(move |(f, _)| (i, f.clone()))
                })
                .collect(),
            structs: (0..sig.params.len())
                .filter(|i| sig.param_fields.get(*i).is_some_and(|f| !f.is_empty()))
                .map(|i| {
                    let name = sig
                        .declared_type(i)
                        .as_ref()
                        .and_then(crate::differentiable::type_name);
                    (i, name.unwrap_or_else(|| "Self".to_string()))
                })
                .collect(),
            operators: Vec::new(),
            struct_fields: Vec::new(),
            struct_elements: Vec::new(),
            trait_methods: Vec::new(),
            returns: Vec::new(),
            checks_float_arithmetic: false,
            no_arithmetic_of_its_own: false,
        }
    }
}

impl Body<'_> {
    /// Completes what the body knows of its structs with operators from the source:
    /// the fields of the parameters' structs whose type has operators (`fields[i]` are
    /// parameter `i`'s struct's fields), and the operator methods implemented for them.
    pub fn struct_operands(
        &mut self,
        seen: &crate::source::Seen,
        fields: &[Vec<(String, syn::Type)>],
        declared: &[Option<syn::Type>],
        self_name: Option<&str>,
    ) {
        // Collections of structs with operators or fields the source shows.
        self.struct_elements = declared
            .iter()
            .enumerate()
            .filter_map(|(i, ty)| {
                let element = collection_element(ty.as_ref()?)?;
                let name = crate::differentiable::type_name(element)
                    .filter(|n| !crate::differentiable::is_primitive(n))?;
                seen.struct_fields(&name)
                    .is_some_and(|f| !f.is_empty())
                    .then_some((i, name))
            })
            .collect();
        // The receiver by its type's name.
        for (_, ty) in &mut self.structs {
            if let (true, Some(name)) = (ty == "Self", self_name) {
                *ty = name.to_string();
            }
        }
        // The structs the body builds, names or gets from calls (`Body { .. }`, `let b:
        // Body`, `|p: V2|`, `V2::new(..)`, `make(k)`, `p.scaled(k)`).
        let (named, calls) = named_structs(self.block);
        let (methods, functions): (Calls, Calls) =
            calls.into_iter().partition(|(owner, _)| owner == "?");
        // The fields of a struct the source shows with some.
        let shown_fields = |name: &str| seen.struct_fields(name).filter(|f| !f.is_empty());
        let returned_struct = |owner: &str, f: &str| {
            seen.returned_type(owner, f)
                .filter(|r| shown_fields(r).is_some())
        };
        let mut returns: Vec<(String, String, String)> = functions
            .into_iter()
            .filter_map(|(owner, f)| Some((owner.clone(), f.clone(), returned_struct(&owner, &f)?)))
            .collect();
        // A method returns what it returns for any receiver the body may hold, found
        // until no new type appears (`Shift::new(..).doubled()`).
        let mut owners: Vec<String> = self
            .structs
            .iter()
            .map(|(_, t)| t.clone())
            .chain(named)
            .chain(returns.iter().map(|(_, _, r)| r.clone()))
            .collect();
        // So do the structs an operator gives (`impl Sub for Point { type Output = Vec2
        // }`) and the structs in fields (`q.p0.to_vec2()`).
        let mut k = 0;
        while k < owners.len() {
            let owner = owners[k].clone();
            let mut more: Vec<String> = Vec::new();
            for (_, m) in &methods {
                if let Some(ret) = returned_struct(&owner, m) {
                    let entry = (owner.clone(), m.clone(), ret.clone());
                    if !returns.contains(&entry) {
                        returns.push(entry);
                    }
                    more.push(ret);
                }
            }
            more.extend(
                seen.operators(&owner)
                    .into_iter()
                    .filter_map(|o| o.output)
                    .filter(|out| shown_fields(out).is_some()),
            );
            more.extend(
                shown_fields(&owner)
                    .into_iter()
                    .flatten()
                    .filter_map(|(_, ty)| {
                        crate::differentiable::type_name(&ty).filter(|n| shown_fields(n).is_some())
                    }),
            );
            for ty in more {
                if !owners.contains(&ty) {
                    owners.push(ty);
                }
            }
            k += 1;
        }
        for name in owners {
            if shown_fields(&name).is_some() && !self.structs.iter().any(|(_, t)| *t == name) {
                self.structs.push((usize::MAX, name));
            }
        }
        self.returns = returns;
        self.checks_float_arithmetic = seen.any_arithmetic();
        self.no_arithmetic_of_its_own = !seen.any_arithmetic();
        // Their fields that are structs, and those structs' fields, transitively:
        // `b.pos * k` and `self.body.vel + a` call the operators of the field's type.
        // (Also of the elements of collections: `bs[i].pos - bs[j].pos` of `bs: &[Body]`.)
        let mut queue: Vec<(String, Vec<(String, syn::Type)>)> = self
            .structs
            .iter()
            .filter_map(|(i, ty)| {
                let own = fields.get(*i).cloned().or_else(|| seen.struct_fields(ty))?;
                Some((ty.clone(), own))
            })
            .chain(
                self.struct_elements
                    .iter()
                    .filter_map(|(_, ty)| Some((ty.clone(), shown_fields(ty)?))),
            )
            .collect();
        let mut visited: Vec<String> = Vec::new();
        self.struct_fields = Vec::new();
        while let Some((ty, own)) = queue.pop() {
            if visited.contains(&ty) {
                continue;
            }
            visited.push(ty.clone());
            for (field, fty) in own {
                let Some(name) = crate::differentiable::type_name(&fty)
                    .filter(|n| !crate::differentiable::is_primitive(n))
                else {
                    continue;
                };
                let nested = shown_fields(&name);
                if nested.is_none() && !seen.has_operators(&name) {
                    continue;
                }
                self.struct_fields.push((ty.clone(), field, name.clone()));
                queue.push((name, nested.unwrap_or_default()));
            }
        }
        // The structs in those fields, whose operators are checked too.
        for (_, _, name) in &self.struct_fields {
            if !self.structs.iter().any(|(_, t)| t == name) {
                self.structs.push((usize::MAX, name.clone()));
            }
        }
        let mut types: Vec<&String> = self
            .structs
            .iter()
            .chain(&self.struct_elements)
            .map(|(_, ty)| ty)
            .collect();
        types.sort();
        types.dedup();
        self.operators = types
            .into_iter()
            .flat_map(|ty| seen.operators(ty))
            .collect();
    }
}

/// The functions a body calls, as `(type, function)`: `("V2", "new")` for
/// `V2::new(..)`, `("", "make")` for `make(k)`, `("?", "scaled")` for `p.scaled(k)`.
type Calls = Vec<(String, String)>;

/// The names of the types the body writes as struct literals (`Body { .. }`) or on a
/// `let` or a closure's input (`let b: Body`, `|p: V2|`), and the functions it calls
/// (also in macros' arguments).
fn named_structs(block: &syn::Block) -> (Vec<String>, Calls) {
    #[derive(Default)]
    struct Names(Vec<String>, Calls);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
            self.0
                .extend(e.path.segments.last().map(|s| s.ident.to_string()));
            syn::visit::visit_expr_struct(self, e);
        }
        fn visit_pat_type(&mut self, p: &'ast syn::PatType) {
            self.0.extend(crate::differentiable::type_name(&p.ty));
            syn::visit::visit_pat_type(self, p);
        }
        fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*e.func {
                let mut segments = p.path.segments.iter().rev().map(|s| s.ident.to_string());
                if let Some(f) = segments.next() {
                    self.1.push((segments.next().unwrap_or_default(), f));
                }
            }
            syn::visit::visit_expr_call(self, e);
        }
        // An associated constant (`Vec2::ZERO`), as a call.
        fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
            let mut segments = e.path.segments.iter().rev().map(|s| s.ident.to_string());
            if let (None, Some(c), Some(ty)) = (&e.qself, segments.next(), segments.next()) {
                let constant = c
                    .chars()
                    .all(|ch| ch.is_uppercase() || ch == '_' || ch.is_ascii_digit());
                if constant {
                    self.1.push((ty, c));
                }
            }
            syn::visit::visit_expr_path(self, e);
        }
        fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
            self.1.push(("?".to_string(), e.method.to_string()));
            syn::visit::visit_expr_method_call(self, e);
        }
        // A macro's arguments, when they are expressions (`vec![p + q, V::new(a, b)]`,
        // `vec![p; n]`).
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let list = m.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            );
            let tokens = &m.tokens;
            match list {
                Ok(exprs) => exprs.iter().for_each(|e| self.visit_expr(e)),
                Err(_) => {
                    if let Ok(e) = syn::parse2::<syn::Expr>(quote::quote!([#tokens])) {
                        self.visit_expr(&e);
                    }
                }
            }
        }
    }
    let mut names = Names::default();
    syn::visit::Visit::visit_block(&mut names, block);
    names.0.sort();
    names.0.dedup();
    names
        .0
        .retain(|n| !crate::differentiable::is_primitive(n) && n != "Self");
    (names.0, names.1)
}

/// Of the parameters `candidates`, those from which no derivative flows to the result
/// (none of the values they vary is active): an enum only matched on, a configuration
/// whose fields are counts and flags.
fn inert(func: &Function, candidates: &[usize]) -> Vec<usize> {
    candidates
        .iter()
        .copied()
        .filter(|i| {
            let act = Activity::analyze(func, &[*i]);
            !act.varied.iter().any(|v| act.useful.contains(v))
        })
        .collect()
}

/// Runs the stages on the body of `name` (for `DIFF_DEBUG_IR`); every refusal goes to `errors`, at the user's span, and then there
/// is nothing to emit.
pub fn analyze(name: &str, body: Body<'_>, errors: &mut Errors) -> Option<Analyzed> {
    let prepared = lower::prepare(body.block, body.output.as_ref());
    let mut lowered = lower::lower_body(
        &body.params,
        prepared.as_ref().unwrap_or(body.block),
        body.scalars.clone(),
        body.by_ref,
        body.mutated,
        lower::Structs {
            params: &body.structs,
            operators: &body.operators,
            fields: &body.struct_fields,
            elements: &body.struct_elements,
            trait_methods: &body.trait_methods,
            returns: &body.returns,
            iterables: &body.iterables,
            output: body.output.as_ref(),
            arrays: &body.arrays,
        },
        errors,
    )?;
    lowered.func.arrays_by_value = body.arrays_by_value;
    lowered.func.array_elements = body.array_elements;
    lowered.func.integers = body.integers;
    lowered.func.discrete = body.discrete;
    lowered.func.discrete_fields = body.discrete_fields;
    lowered.func.generic_scalar = !body.scalars.is_empty();
    lowered.func.checks_float_arithmetic = body.checks_float_arithmetic;
    lowered.func.no_arithmetic_of_its_own = body.no_arithmetic_of_its_own;
    let left_out = inert(&lowered.func, &body.undecided);
    let wrt: Vec<usize> = body
        .wrt
        .iter()
        .copied()
        .filter(|i| !left_out.contains(i))
        .collect();
    let act = Activity::analyze(&lowered.func, &wrt);
    if !check::check(&lowered.func, &act, errors) {
        return None;
    }
    let maps = LinearMaps::analyze(&lowered.func, &act);
    let analyzed = Analyzed {
        func: lowered.func,
        items: lowered.items,
        act,
        maps,
        left_out,
    };
    crate::debug::dump_ir(name, &analyzed);
    Some(analyzed)
}

/// The element type of a collection type (`&[T]`, `&Vec<T>`, `Vec<T>`, `[T; N]`).
fn collection_element(mut ty: &syn::Type) -> Option<&syn::Type> {
    while let syn::Type::Reference(r) = ty {
        ty = &r.elem;
    }
    match ty {
        syn::Type::Slice(s) => Some(&s.elem),
        ty => crate::parse::types::element_type(ty),
    }
}
