//! The differential operators: `gradient!(at: x, of: f)` and friends.
//!
//! `of:` is a path to a differentiable function (its user-shaped companions
//! `__pullback_f` / `__differential_f` are called), or a closure literal, which is
//! lowered and differentiated in place like a function body.
use crate::analysis::activity::Activity;
use crate::emit::companion::{body_parts, body_parts_with, zero_later};
use crate::emit::names::{self, ident, Kind, Mode};
use crate::errors::Errors;
use crate::ir::{Callee, Inst};
use crate::lifting;
use crate::linear_map::LinearMaps;
use crate::pipeline::{self, Body};
use crate::requirements::{self, Need};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;

/// Which operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Gradient,
    ValueWithGradient,
    Pullback,
    ValueWithPullback,
    FirstDerivative,
    ValueWithDerivative,
    Differential,
    ValueWithDifferential,
    Jacobian,
    Hessian,
    SecondDerivative,
    ValueWithSecondDerivative,
}

impl Op {
    fn mode(self) -> Mode {
        match self {
            Op::Gradient
            | Op::ValueWithGradient
            | Op::Pullback
            | Op::ValueWithPullback
            | Op::Hessian
            | Op::SecondDerivative
            | Op::ValueWithSecondDerivative => Mode::Vjp,
            _ => Mode::Jvp,
        }
    }
}

/// `at: expr, of: expr` (in either order).
struct Args {
    at: syn::Expr,
    of: syn::Expr,
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let (mut at, mut of) = (None, None);
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<syn::Token![:]>()?;
            // (A `macro_rules!` argument `$f:expr` arrives in an invisible group.)
            let mut value = input.parse()?;
            syn::visit_mut::VisitMut::visit_expr_mut(
                &mut crate::parse::ungroup::Ungroup,
                &mut value,
            );
            match key.to_string().as_str() {
                "at" => at = Some(value),
                "of" => of = Some(value),
                _ => return Err(syn::Error::new_spanned(&key, "expected `at:` or `of:`")),
            }
            if !input.is_empty() {
                input.parse::<syn::Token![,]>()?;
            }
        }
        match (at, of) {
            (Some(at), Some(of)) => Ok(Args { at, of }),
            _ => Err(input.error("expected `at: <point>, of: <function or closure>`")),
        }
    }
}

/// Expands one operator call.
pub fn expand(op: Op, input: TokenStream) -> TokenStream {
    match syn::parse2::<Args>(input).and_then(|args| expand_args(op, args)) {
        Ok(t) => {
            crate::debug::dump(&t);
            t
        }
        Err(e) => e.to_compile_error(),
    }
}

/// The inputs `at` gives: the elements of a tuple written in place (`at: (x, y)`), unless
/// the function takes one parameter (`fn f(p: (f64, f64))`, `|p: (f64, f64)| ..`), which
/// the tuple is.
pub(crate) fn inputs(at: &syn::Expr, of: &syn::Expr) -> Vec<syn::Expr> {
    let one_parameter = match of {
        syn::Expr::Closure(c) => c.inputs.len() == 1,
        syn::Expr::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .and_then(|s| crate::source::free_function_arity(s.ident.span(), &s.ident.to_string()))
            .is_some_and(|n| n == 1),
        _ => false,
    };
    match at {
        syn::Expr::Tuple(t) if t.elems.len() >= 2 && !one_parameter => {
            t.elems.iter().cloned().collect()
        }
        other => vec![other.clone()],
    }
}

fn expand_args(op: Op, args: Args) -> syn::Result<TokenStream> {
    if let syn::Expr::Path(p) = &args.of {
        if let Some(id) = p
            .path
            .get_ident()
            .filter(|id| crate::source::is_local_variable(id))
        {
            return Err(syn::Error::new_spanned(
                p,
                format!("`{id}` is a variable here, not a function: `of:` takes the name of a #[differentiable] fn or a closure literal, whose body the macro reads; write the closure in `of:` (`of: |x| ..`), or make `{id}` a #[differentiable] fn"),
            ));
        }
    }
    let ins = as_references(inputs(&args.at, &args.of), &args.of);
    if matches!(op, Op::FirstDerivative | Op::ValueWithDerivative) && ins.len() != 1 {
        return Err(syn::Error::new_spanned(&args.at, "first_derivative! takes one scalar input; for several inputs use differential! or gradient!"));
    }
    if op == Op::Hessian {
        return hessian(&ins, &args.of);
    }
    if op == Op::Jacobian && !matches!(&ins[..], [syn::Expr::Reference(_)]) {
        return jacobian(&ins, &args.of);
    }
    if matches!(op, Op::SecondDerivative | Op::ValueWithSecondDerivative) {
        return second_derivative(op, &ins, &args.of);
    }
    match &args.of {
        syn::Expr::Closure(c) => closure(op, &ins, c, false),
        syn::Expr::Path(p) if is_scalar_method(p) => {
            let c = method_as_closure(p, ins.len());
            closure(op, &ins, &c, false)
        }
        syn::Expr::Path(p) => Ok(path(op, &ins, p)),
        other => Err(syn::Error::new_spanned(
            other,
            "`of:` takes a path to a differentiable function or a closure literal",
        )),
    }
}

/// `f64::tanh`, `f32::sin`, `Float::exp`: a scalar method, differentiated as `|x| f64::tanh(x)`.
fn is_scalar_method(p: &syn::ExprPath) -> bool {
    let segs = &p.path.segments;
    segs.len() >= 2
        && matches!(
            segs[segs.len() - 2].ident.to_string().as_str(),
            "f32" | "f64" | "Float"
        )
}

/// An input given to a closure's parameter typed as a shared reference (`|p: &[f64]|`)
/// is one (`at: xs` with `xs: &[f64]`): taken as `&*xs`, as `at: &v` is taken.
fn as_references(ins: Vec<syn::Expr>, of: &syn::Expr) -> Vec<syn::Expr> {
    let syn::Expr::Closure(c) = of else {
        return ins;
    };
    ins.into_iter()
        .zip(c.inputs.iter().map(Some).chain(std::iter::repeat(None)))
        .map(|(e, p)| match (e, p) {
            (e, Some(p)) if by_shared_reference(p) && !matches!(e, syn::Expr::Reference(_)) => {
                syn::parse_quote_spanned!(syn::spanned::Spanned::span(&e)=> &*(#e))
            }
            (e, _) => e,
        })
        .collect()
}

/// Whether a closure's parameter is typed as a shared reference (`p: &[f64]`).
fn by_shared_reference(p: &syn::Pat) -> bool {
    matches!(p, syn::Pat::Type(t)
        if matches!(&*t.ty, syn::Type::Reference(r) if r.mutability.is_none()))
}

fn method_as_closure(p: &syn::ExprPath, arity: usize) -> syn::ExprClosure {
    let names: Vec<Ident> = (0..arity).map(|i| quote::format_ident!("x{}", i)).collect();
    syn::parse_quote!(|#(#names),*| #p(#(#names),*))
}

fn path(op: Op, ins: &[syn::Expr], p: &syn::ExprPath) -> TokenStream {
    let kind = if op.mode() == Mode::Vjp {
        Kind::Pullback
    } else {
        Kind::Differential
    };
    let companion = names::companion_expr(p, kind);
    let args: Vec<Ident> = (0..ins.len())
        .map(|i| ident(&format!("__input{i}")))
        .collect();
    let call = quote! { #companion(#(#args),*) };
    let mut checks = requirement(p, Need::of(kind));
    checks.extend(names::mention_import(&p.path));
    finish(op, ins, &[], &args, checks, call)
}

/// The check that the function `p` names has what mode `need` runs (`requirements.rs`),
/// where `p` names its carrier (nothing otherwise).
fn requirement(p: &syn::ExprPath, need: Need) -> TokenStream {
    match names::carrier(&p.path, p.qself.is_some()) {
        Some(carrier) => requirements::check(&carrier, need, p.span()),
        None => TokenStream::new(),
    }
}

/// The checks of what the functions a closure calls need for mode `need`.
fn closure_requirements(analyzed: &pipeline::Analyzed, need: Need) -> TokenStream {
    let local = requirements::local_names(&analyzed.items);
    let mut checks: TokenStream =
        requirements::callees(&analyzed.func, &analyzed.act, None, &local)
            .iter()
            .map(|c| requirements::check(c, need, c.span()))
            .collect();
    // A function imported by name that the lookup rule reads through its `use` is
    // called by another path: the import is used all the same.
    let mut mentioned: Vec<String> = Vec::new();
    for stmt in analyzed.func.regions.iter().flat_map(|r| r.stmts.iter()) {
        if let Inst::Call(Callee::Path(p), _) | Inst::CallMut(Callee::Path(p), ..) = &stmt.inst {
            let mention = names::mention_import(&p.path);
            if !mention.is_empty() && !mentioned.contains(&mention.to_string()) {
                mentioned.push(mention.to_string());
                checks.extend(mention);
            }
        }
    }
    checks
}

/// Binds the inputs, calls `call` (evaluating to `(value, linear map)` in the user's
/// shapes) and applies the operator.
///
/// `pre` are statements evaluated first, in the operator's scope, so that a linear map
/// borrowing their locals lives as long as the operator's result needs.
///
/// `types` are the inputs' declared types, where a closure declares them (`|w: &[f64]|`
/// given `at: &[1.0, 2.0]`): bound with them, an input is coerced as the closure's call
/// would, and its zero has the parameter's shape.
fn finish(
    op: Op,
    ins: &[syn::Expr],
    types: &[Option<syn::Type>],
    args: &[Ident],
    pre: TokenStream,
    call: TokenStream,
) -> TokenStream {
    let rt = quote!(::diff::__private);
    let lets = ins
        .iter()
        .zip(args)
        .enumerate()
        .map(|(i, (e, a))| match types.get(i) {
            Some(Some(ty)) => quote!(let #a: #ty = #e;),
            _ => quote!(let #a = #e;),
        });
    let lets = quote! { #(#lets)* #pre };
    let x = &args[0];
    match op {
        Op::Gradient => {
            quote! {{ #lets let (__value, __linear_pullback) = #call; __linear_pullback(#rt::Unit::unit(&__value)) }}
        }
        Op::ValueWithGradient => {
            quote! {{ #lets let (__value, __linear_pullback) = #call; let __gradient = __linear_pullback(#rt::Unit::unit(&__value)); (__value, __gradient) }}
        }
        Op::Pullback => quote! {{ #lets let (_, __linear_pullback) = #call; __linear_pullback }},
        Op::ValueWithPullback | Op::ValueWithDifferential => quote! {{ #lets #call }},
        Op::FirstDerivative => {
            quote! {{ #lets let __unit = #rt::Unit::unit(&#x); let (_, __linear_differential) = #call; __linear_differential(__unit) }}
        }
        Op::ValueWithDerivative => {
            quote! {{ #lets let __unit = #rt::Unit::unit(&#x); let (__value, __linear_differential) = #call; (__value, __linear_differential(__unit)) }}
        }
        Op::Differential => {
            quote! {{ #lets let (_, __linear_differential) = #call; __linear_differential }}
        }
        Op::Jacobian => {
            let first = &ins[0];
            if let syn::Expr::Reference(_) = first {
                // `at: &x`: the columns are taken at copies of `x` (owned: a sub-slice
                // `&v[..k]` is copied into a `Vec`), passed by reference.
                let owned = ident("__owned");
                quote! {{ let #x = ::std::borrow::ToOwned::to_owned(#first); #rt::jacobian(&#x, |#owned, __direction| { let #x = &#owned; #pre let (_, __linear_differential) = #call; __linear_differential(#rt::IntoDirection::into_direction(__direction)) }) }}
            } else {
                quote! {{ let #x = #first; #rt::jacobian(&#x, |#x, __direction| { #pre let (_, __linear_differential) = #call; __linear_differential(__direction) }) }}
            }
        }
        // Expanded by `hessian` and `second_derivative` before reaching here.
        Op::Hessian | Op::SecondDerivative | Op::ValueWithSecondDerivative => TokenStream::new(),
    }
}

/// A closure literal, lowered and differentiated in place; with `dual`, run on dual
/// numbers (its inputs are), for second order: its IR is lifted as a function's dual
/// companion's (`lifting.rs`), so that constants joined with its values become dual and
/// the functions it calls are called through their dual companions. A closure that cannot
/// be lifted runs as it is (which works where its code is generic enough).
fn closure(
    op: Op,
    ins: &[syn::Expr],
    c: &syn::ExprClosure,
    dual: bool,
) -> syn::Result<TokenStream> {
    if c.inputs.len() != ins.len() {
        return Err(syn::Error::new_spanned(
            &c.inputs,
            format!(
                "the closure takes {} parameter(s) but `at:` gives {}",
                c.inputs.len(),
                ins.len()
            ),
        ));
    }
    if let Some(call) = captured_closure_call(c) {
        let f = &call.func;
        return Err(syn::Error::new_spanned(
            f,
            format!(
                "`{}` is a variable holding a closure or a function: what it calls is not here for the macro to differentiate; write the body in this closure, or call a #[differentiable] fn by its name (wrap the call in `no_derivative(..)` if it should carry no derivative)",
                quote!(#f)
            ),
        ));
    }
    let ins: Vec<syn::Expr> = ins
        .iter()
        .zip(&c.inputs)
        .map(|(e, p)| typed_for(e, Some(p)))
        .collect();
    let ins = &ins[..];
    let pats: Vec<syn::Pat> = c.inputs.iter().cloned().collect();
    // The inputs differentiated with respect to: not those typed as integers
    // (`|x: f64, n: usize|`), nor those of a type the crate defines without making it
    // Differentiable (`|x: f64, cfg: &Config|`), left out as a function's are.
    let integer = |i: &usize| matches!(&pats[*i], syn::Pat::Type(t) if is_integer_type(&t.ty));
    let not_differentiable: Vec<(usize, syn::Type)> = (0..pats.len())
        .filter_map(|i| match &pats[i] {
            syn::Pat::Type(t) => crate::differentiable::not_differentiable(&t.ty).map(|ty| (i, ty)),
            _ => None,
        })
        .collect();
    let integers: Vec<usize> = (0..pats.len()).filter(integer).collect();
    let kept: Vec<usize> = (0..pats.len())
        .filter(|i| !integers.contains(i) && !not_differentiable.iter().any(|(k, _)| k == i))
        .collect();
    // The closure's body as a function's: its block itself (`|x| -> f64 { .. }`),
    // whose `return`s then leave the body.
    let block = match &*c.body {
        syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.clone(),
        body => syn::Block {
            brace_token: Default::default(),
            stmts: vec![syn::Stmt::Expr(body.clone(), None)],
        },
    };
    // Inputs typed as structs of the crate (`|p: V2| ..`), whose operators the body
    // calls.
    let typed: Vec<(usize, String)> = pats
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            syn::Pat::Type(t) => crate::differentiable::type_name(&t.ty).map(|n| (i, n)),
            _ => None,
        })
        .collect();
    let seen = pats
        .iter()
        .find_map(|p| crate::source::seen(crate::lower::pat_name(p)?));
    let mut struct_params = Vec::new();
    let mut struct_fields = vec![Vec::new(); pats.len()];
    if let Some(seen) = &seen {
        for (i, name) in typed {
            if let Some(fields) = seen.struct_fields(&name).filter(|f| !f.is_empty()) {
                struct_fields[i] = fields;
                struct_params.push((i, name));
            }
        }
    }
    // Inputs typed as references (`|p: &[f64]|`): iterating one yields references.
    let by_ref: Vec<String> = pats
        .iter()
        .filter(|p| by_shared_reference(p))
        .filter_map(|p| crate::lower::pat_name(p).map(|n| n.to_string()))
        .collect();
    let mut body = Body {
        params: pats,
        block: &block,
        scalars: Vec::new(),
        by_ref,
        mutated: Vec::new(),
        wrt: kept.clone(),
        undecided: Vec::new(),
        arrays: Vec::new(),
        arrays_by_value: Vec::new(),
        array_elements: Vec::new(),
        integers,
        discrete: Vec::new(),
        iterables: Vec::new(),
        discrete_fields: Vec::new(),
        structs: struct_params,
        operators: Vec::new(),
        struct_fields: Vec::new(),
        struct_elements: Vec::new(),
        trait_methods: seen.as_ref().map(|s| s.trait_methods()).unwrap_or_default(),
        returns: Vec::new(),
        checks_float_arithmetic: false,
        no_arithmetic_of_its_own: false,
        output: match &c.output {
            syn::ReturnType::Type(_, ty) => Some((**ty).clone()),
            syn::ReturnType::Default => None,
        },
    };
    if let Some(seen) = &seen {
        let declared = declared_types(&body.params);
        body.struct_operands(seen, &struct_fields, &declared, None);
    }
    let mut errors = Errors::default();
    let analyzed = match (
        pipeline::analyze("closure", body, &mut errors),
        errors.into_result(),
    ) {
        (Some(analyzed), Ok(())) => analyzed,
        (_, Err(e)) => return Err(e),
        (None, Ok(())) => return Err(syn::Error::new_spanned(
            c,
            "internal error in diff: the closure was refused without a reason; please report it",
        )),
    };
    let args: Vec<Ident> = (0..ins.len())
        .map(|i| ident(&format!("__input{i}")))
        .collect();
    let params: Vec<TokenStream> = args.iter().map(|a| a.to_token_stream()).collect();
    let mode = op.mode();
    // (The inputs' literals, or the closure's declared types: `|x: f32|` at a point
    // lifted to dual numbers.)
    let declared = c.inputs.iter().filter_map(|p| match p {
        syn::Pat::Type(t) => Some(t.ty.to_token_stream().to_string()),
        _ => None,
    });
    let scalar = if quote!(#(#ins)*).to_string().contains("f32")
        || declared.into_iter().any(|t| t.contains("f32"))
    {
        "f32"
    } else {
        "f64"
    };
    let lifted = dual
        .then(|| {
            // The structs with a twin the closure names, built of its dual inputs.
            let twins = seen
                .as_ref()
                .map(|s| crate::differentiable::twins_in(c.to_token_stream(), s))
                .unwrap_or_default();
            let generic = seen
                .as_ref()
                .map(|s| s.generic_structs())
                .unwrap_or_default();
            let generic_methods = seen
                .as_ref()
                .map(|s| s.generic_methods())
                .unwrap_or_default();
            let floats = lifting::FloatInputs {
                params: &kept,
                param_fields: &[],
                twins: &twins,
                param_structs: &[],
                param_elements: &[],
                param_discrete: &[],
                discrete_params: &[],
                type_params: &[],
                generic_structs: (&generic, &[]),
                in_closure: true,
                generic_methods: &generic_methods,
            };
            lifting::lift(&analyzed.func, &analyzed.act, &kept, floats, scalar)
        })
        .and_then(Result::ok);
    let (stmts, inner) = match &lifted {
        Some(func) => {
            let act = Activity::analyze(func, &kept);
            let maps = LinearMaps::analyze(func, &act);
            let (stmts, inner) = body_parts_with(
                func,
                (&act, &maps),
                mode,
                params,
                ins.len(),
                &analyzed.items,
                |e| e.dual = true,
            );
            let scalar = Ident::new(scalar, proc_macro2::Span::call_site());
            let aliases = crate::twin::aliases(func, &scalar);
            let stmts = quote! {
                #aliases
                #[allow(unused_imports)]
                use ::diff::__private::Float as _;
                #stmts
            };
            (stmts, inner)
        }
        None => body_parts(
            &analyzed.func,
            &analyzed.act,
            &analyzed.maps,
            mode,
            params,
            ins.len(),
            &analyzed.items,
        ),
    };
    let need = match (&lifted, mode) {
        (Some(_), _) => Need::Second,
        (None, Mode::Vjp) => Need::Reverse,
        (None, Mode::Jvp) => Need::Forward,
    };
    let mut checks = closure_requirements(&analyzed, need);
    // Left out because the crate defines its type without making it Differentiable:
    // checked, as a function's parameter is.
    for (_, ty) in &not_differentiable {
        checks.extend(quote! { ::diff::__private::left_out_of_the_derivative::<#ty, _>(); });
    }
    let rt = quote!(::diff::__private);
    // The inputs' zeros: in reverse mode built only if the adjoint lacks their shape, in
    // forward mode naming the tangent types.
    let zeros: Vec<TokenStream> = ins
        .iter()
        .zip(&args)
        .map(|(e, a)| {
            let r = match e {
                syn::Expr::Reference(_) => quote!(#a),
                _ => quote!(&#a),
            };
            match mode {
                Mode::Vjp => zero_later(r),
                Mode::Jvp => quote!(#rt::zero_of(#r)),
            }
        })
        .collect();
    let n = ins.len();
    let (pre, call) = match mode {
        Mode::Vjp => {
            // Zeros for the kept inputs only: a left-out one has no adjoint.
            let zs: Vec<Ident> = kept.iter().map(|i| ident(&format!("__zero{i}"))).collect();
            let zeros: Vec<&TokenStream> = kept.iter().map(|i| &zeros[*i]).collect();
            let gs: Vec<Ident> = kept.iter().map(|i| ident(&format!("g{i}"))).collect();
            let slots: Vec<TokenStream> = (0..n)
                .map(|i| match kept.iter().position(|k| *k == i) {
                    Some(j) => gs[j].to_token_stream(),
                    None => quote!(_),
                })
                .collect();
            let out = if kept.len() == 1 {
                quote!(#(::diff::__private::ZeroLater::finish(#zs, #gs))*)
            } else {
                quote!((#(::diff::__private::ZeroLater::finish(#zs, #gs),)*))
            };
            (
                quote! {
                    #checks
                    #(let #zs = #zeros;)*
                    #stmts
                    let (__value, __linear_pullback) = #rt::with_pullback(#inner);
                },
                quote! { (__value, move |seed| { let (#(#slots,)*) = __linear_pullback(seed); #out }) },
            )
        }
        Mode::Jvp => {
            let ds: Vec<Ident> = kept.iter().map(|i| ident(&format!("d{i}"))).collect();
            // Every input has a slot; a left-out one's tangent is none.
            let tangents: Vec<TokenStream> = (0..n)
                .map(|i| match kept.iter().position(|k| *k == i) {
                    Some(j) => {
                        let d = &ds[j];
                        quote!(::core::option::Option::Some(#d))
                    }
                    None => quote!(::core::option::Option::None),
                })
                .collect();
            // Every input's zero: the differential has a slot for each.
            let zs: Vec<Ident> = (0..n).map(|i| ident(&format!("__zero{i}"))).collect();
            let input = if kept.len() == 1 {
                quote!(#(#ds)*)
            } else {
                quote!((#(#ds,)*))
            };
            (
                quote! {
                    #checks
                    #(let #zs = #zeros;)*
                    #stmts
                    let (__value, __linear_differential) = #rt::with_differential((#(&#zs,)*), #inner);
                    let __zero = #rt::zero_of(&__value);
                },
                quote! { (__value, move |#input| __linear_differential((#(#tangents,)*)).unwrap_or(__zero)) },
            )
        }
    };
    // (On dual numbers the inputs are lifted already: their types are not the declared.)
    let types: Vec<Option<syn::Type>> = match c.inputs.len() == ins.len() && !dual {
        true => declared_types(&c.inputs),
        false => Vec::new(),
    };
    Ok(finish(op, ins, &types, &args, pre, call))
}

/// Whether `ty` is a primitive integer type (`usize`, `i32`, ..) or `bool`.
fn is_integer_type(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(tp) if tp.qself.is_none()
    && tp.path.get_ident().is_some_and(|i| {
        let i = i.to_string();
        crate::ir::INTEGER_TYPES.contains(&i.as_str()) || i == "bool"
    }))
}

/// An unsuffixed float literal (`4.0`, `-1.5`) becomes `f64`, as Rust's fallback would
/// make it, so that method calls in a closure body know their receiver's type. In an
/// array or `vec!` whose elements include a suffixed literal (`[2.0f32, 0.5]`) the others
/// take that suffix, as Rust's inference would give them.
fn typed_literal(e: &syn::Expr) -> syn::Expr {
    typed_literal_as(e, "f64")
}

/// The point of an operator nested in a differentiable body with its literals typed
/// ([`typed_literal`]), as `f32` where the closure takes an `f32` there: an unsuffixed
/// literal would leave the type of the point's dual numbers open where the derivative
/// lifts it.
pub(crate) fn typed_point(at: &syn::Expr, of: &syn::Expr) -> syn::Expr {
    let parameter = |i: usize| match of {
        syn::Expr::Closure(c) => c.inputs.iter().nth(i),
        _ => None,
    };
    // (Only a scalar literal: the lowering reads collections as written.)
    let typed = |e: &syn::Expr, i: usize| match e {
        syn::Expr::Lit(_) | syn::Expr::Unary(_) => typed_for(e, parameter(i)),
        _ => e.clone(),
    };
    match at {
        syn::Expr::Tuple(t) if inputs(at, of).len() >= 2 => {
            let mut t = t.clone();
            for (i, e) in t.elems.iter_mut().enumerate() {
                *e = typed(e, i);
            }
            syn::Expr::Tuple(t)
        }
        _ => typed(at, 0),
    }
}

/// The input `e` of a closure's parameter `p` with its literals typed: as the parameter
/// declares (`|c: Complex, n: usize|` at `(c, 3)` keeps the integer, `|x: f32|` makes
/// `1.0` an `f32`), else as `f64` ([`typed_literal`]).
fn typed_for(e: &syn::Expr, p: Option<&syn::Pat>) -> syn::Expr {
    match p {
        Some(syn::Pat::Type(t)) if is_integer_type(&t.ty) => e.clone(),
        Some(syn::Pat::Type(t)) if matches!(&*t.ty, syn::Type::Path(tp) if tp.path.is_ident("f32")) => {
            typed_literal_as(e, "f32")
        }
        _ => typed_literal(e),
    }
}

/// [`typed_literal`] with the type an unsuffixed literal takes.
fn typed_literal_as(e: &syn::Expr, scalar: &str) -> syn::Expr {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            attrs,
        }) if f.suffix().is_empty() => {
            let lit = syn::LitFloat::new(&format!("{}_{scalar}", f.base10_digits()), f.span());
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(lit),
                attrs: attrs.clone(),
            })
        }
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            attrs,
        }) if i.suffix().is_empty() => {
            let lit = syn::LitFloat::new(&format!("{}.0_{scalar}", i.base10_digits()), i.span());
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(lit),
                attrs: attrs.clone(),
            })
        }
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            let mut u = u.clone();
            u.expr = Box::new(typed_literal_as(&u.expr, scalar));
            syn::Expr::Unary(u)
        }
        syn::Expr::Paren(p) => typed_literal_as(&p.expr, scalar),
        syn::Expr::Array(a) => {
            let scalar = elements_scalar(a.elems.iter()).unwrap_or_else(|| scalar.to_string());
            let mut a = a.clone();
            a.elems = a
                .elems
                .iter()
                .map(|e| typed_literal_as(e, &scalar))
                .collect();
            syn::Expr::Array(a)
        }
        syn::Expr::Reference(r) => {
            let mut r = r.clone();
            r.expr = Box::new(typed_literal_as(&r.expr, scalar));
            syn::Expr::Reference(r)
        }
        syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            match m.mac.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            ) {
                Ok(elems) => {
                    let scalar =
                        elements_scalar(elems.iter()).unwrap_or_else(|| scalar.to_string());
                    let elems = elems.iter().map(|e| typed_literal_as(e, &scalar));
                    syn::parse_quote!(::std::vec![#(#elems),*])
                }
                Err(_) => e.clone(),
            }
        }
        other => other.clone(),
    }
}

/// The suffix of the first suffixed float literal among an array's elements (looking
/// through `-` and parentheses, and into nested arrays).
fn elements_scalar<'a>(elems: impl Iterator<Item = &'a syn::Expr>) -> Option<String> {
    fn suffix(e: &syn::Expr) -> Option<String> {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(f),
                ..
            }) if !f.suffix().is_empty() => Some(f.suffix().to_string()),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => suffix(&u.expr),
            syn::Expr::Paren(p) => suffix(&p.expr),
            syn::Expr::Array(a) => elements_scalar(a.elems.iter()),
            _ => None,
        }
    }
    elems.filter_map(suffix).next()
}

/// `f` to run on dual numbers: a generic function named with its scalar,
/// `f::<f64>`, becomes `f::<Dual<f64>>` (any other `of:` is left as it is).
fn on_duals(of: &syn::Expr) -> syn::Expr {
    let mut of = of.clone();
    if let syn::Expr::Path(p) = &mut of {
        if let Some(last) = p.path.segments.last_mut() {
            if let syn::PathArguments::AngleBracketed(args) = &mut last.arguments {
                for arg in args.args.iter_mut() {
                    if let syn::GenericArgument::Type(syn::Type::Path(t)) = arg {
                        if t.qself.is_none() && (t.path.is_ident("f64") || t.path.is_ident("f32")) {
                            let scalar = t.clone();
                            *arg = syn::parse_quote!(::diff::__private::Dual<#scalar>);
                        }
                    }
                }
            }
        }
    }
    of
}

/// `of:` naming a function (not a scalar method, not a closure): its dual companion runs
/// the gradient on dual numbers (`emit/dual.rs`), with a generic function's scalar
/// replaced by dual numbers (`f::<f64>` becomes `f::<Dual<f64>>`).
fn dual_path(of: &syn::Expr) -> Option<syn::ExprPath> {
    match on_duals(of) {
        syn::Expr::Path(p) if !is_scalar_method(&p) => {
            Some(names::companion_expr(&p, Kind::VjpDual))
        }
        _ => None,
    }
}

/// The check that the function `of` names has second order (nothing for a closure).
fn second_order_of(of: &syn::Expr) -> TokenStream {
    match of {
        syn::Expr::Path(p) => requirement(p, Need::Second),
        _ => TokenStream::new(),
    }
}

/// `(value, gradient)` of the function whose dual companion is `companion`, at `arg`
/// (dual numbers, or a reference to them), with the gradient in the user's shape, after
/// `check`, that the function has second order.
fn dual_gradient(
    companion: &syn::ExprPath,
    args: &[TokenStream],
    check: TokenStream,
) -> TokenStream {
    let rt = quote!(::diff::__private);
    let names: Vec<Ident> = (0..args.len()).map(|i| format_ident!("__arg{i}")).collect();
    let slots: Vec<Ident> = (0..args.len())
        .map(|i| format_ident!("__slot{i}"))
        .collect();
    let zeros: Vec<Ident> = (0..args.len())
        .map(|i| format_ident!("__zero{i}"))
        .collect();
    // The zero is built eagerly: the point's type may not be known yet where this is
    // expanded (a gradient nested in a body), which the lazy zero's probe needs.
    let zero_of = args.iter().zip(&names).map(|(arg, name)| {
        let reference = matches!(arg.clone().into_iter().next(), Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '&');
        if reference {
            quote!(#rt::zero_of(#name))
        } else {
            quote!(#rt::zero_of(&#name))
        }
    });
    let gradient = if args.len() == 1 {
        quote!(#rt::slot_or(__slot0, __zero0))
    } else {
        quote!((#(#rt::slot_or(#slots, #zeros)),*))
    };
    quote! {{
        #check
        #(let #names = #args;)*
        #(let #zeros = #zero_of;)*
        let (__value, __linear_pullback) = #companion(#(#rt::LiftTo::lift_to(#names)),*);
        let (#(#slots,)*) = __linear_pullback(#rt::Unit::unit(&__value));
        (__value, #gradient)
    }}
}

/// The operators a differentiable body may call on its values.
pub(crate) const NESTABLE: &[&str] = &["gradient", "first_derivative"];

/// The operators whose result is a second derivative: in a differentiated body, kept as
/// written (differentiating them would need a third derivative).
pub(crate) const SECOND_ORDER: &[&str] = &[
    "second_derivative",
    "value_with_second_derivative",
    "hessian",
];

/// `value_with_gradient!(at: x, of: f)` (or `value_with_derivative!`) in a
/// differentiable body, as the pair it computes, `{ let p = x; (f(p), gradient!(at: p,
/// of: f)) }`, whose parts the body differentiates. `None` for any other macro.
pub(crate) fn nested_value_with(m: &syn::Macro) -> Option<syn::Result<syn::Expr>> {
    let op = m.path.segments.last()?.ident.to_string();
    let inner = match op.as_str() {
        "value_with_gradient" => "gradient",
        "value_with_derivative" => "first_derivative",
        _ => return None,
    };
    let args = match m.parse_body::<Args>() {
        Ok(a) => a,
        Err(e) => return Some(Err(e)),
    };
    let (at, of) = (&args.at, &args.of);
    let points: Vec<Ident> = match at {
        syn::Expr::Tuple(t) if t.elems.len() >= 2 => (0..t.elems.len())
            .map(|k| ident(&format!("__diff_at{k}")))
            .collect(),
        _ => vec![ident("__diff_at0")],
    };
    let point = if points.len() == 1 {
        let p = &points[0];
        quote!(#p)
    } else {
        quote!((#(#points),*))
    };
    // (A point given by reference is given as it is: a copy of the reference.)
    let given: Vec<&syn::Expr> = match at {
        syn::Expr::Tuple(t) if t.elems.len() >= 2 => t.elems.iter().collect(),
        _ => vec![at],
    };
    let copies = points.iter().zip(given).map(|(p, e)| match e {
        syn::Expr::Reference(_) => quote!(#p),
        _ => quote!(#p.clone()),
    });
    let value = match of {
        syn::Expr::Closure(_) => quote!({ let __diff_f = #of; __diff_f(#(#copies),*) }),
        _ => quote!(#of(#(#copies),*)),
    };
    let mut prefix = m.path.clone();
    if let Some(last) = prefix.segments.last_mut() {
        last.ident = Ident::new(inner, last.ident.span());
    }
    let expr = quote!({
        let #point = #at;
        (#value, #prefix!(at: #point, of: #of))
    });
    Some(syn::parse2(expr))
}

/// `op!(at: x, of: f)` in a differentiable body: `(op, at, of)`, for an operator in
/// [`NESTABLE`] with one point; `None` for any other macro.
pub(crate) fn parse_nested(m: &syn::Macro) -> Option<syn::Result<(Ident, syn::Expr, syn::Expr)>> {
    let op = m.path.segments.last()?.ident.clone();
    if !NESTABLE.iter().any(|n| op == n) {
        return None;
    }
    Some(m.parse_body::<Args>().and_then(|args| {
        // Several inputs (`gradient!(at: (x, y), of: f)`) are one tuple.
        if inputs(&args.at, &args.of).len() >= 2 && op != "gradient" {
            return Err(syn::Error::new_spanned(
                &args.at,
                format!("{op}! inside a differentiable body takes one point, or for gradient! several inputs by value; pack them into a Vec or an array"),
            ));
        }
        Ok((op, args.at, args.of))
    }))
}

/// The nested operator run on the dual numbers `__lifted`: its dual parts are the
/// second derivative applied to the lifting direction.
///
/// With captures of the closure that carry derivatives (`active[k]` for `n.captures[k]`),
/// `__lifted` is the point followed by them, and the gradient is taken of the closure
/// taking them as parameters too ([`crate::ir::Nested::extended`]): its dual parts are
/// the columns of the Hessian in the parameters and those captures together. The other
/// captures are read as `kept(value)` names them.
pub(crate) fn nested_on_duals(
    n: &crate::ir::Nested,
    active: &[bool],
    lent: &[Ident],
    kept: &dyn Fn(crate::ir::Value) -> TokenStream,
) -> TokenStream {
    let of = n.extended(active, kept);
    // The caller's variables it reads, through the references the primal lends
    // (`emit/environment.rs`).
    let of = match lent {
        [] => of,
        names => {
            let lent = crate::emit::environment::through_lenders(of.to_token_stream(), names);
            syn::parse2(lent).unwrap_or(of)
        }
    };
    let extended = active.iter().any(|a| *a);
    let lifted = if extended {
        n.extended_point(&format_ident!("__lifted"), active)
    } else {
        match n.inputs {
            Some(k) => tuple_fields(&format_ident!("__lifted"), k),
            None => vec![syn::parse2(n.point(quote!(__lifted), false)).expect("a point")],
        }
    };
    let op = if extended {
        format_ident!("gradient")
    } else {
        n.op.clone()
    };
    let of = on_duals(&of);
    // A gradient of a named function runs through its dual companion (also for one
    // written for `f64`), of a closure through the closure's (as for `hessian!`); so
    // does a derivative, of a scalar function of a scalar, which is its gradient.
    // (A closure nesting an operator itself runs on dual numbers of dual numbers, which
    // the closure's lifting does not take: as it is, generic.)
    let through_companion = dual_path(&of).is_some()
        || matches!(&of, syn::Expr::Closure(c) if !names_an_operator(c.body.to_token_stream()));
    if (op == "gradient" || op == "first_derivative") && through_companion {
        return dual_column(&of, &lifted).unwrap_or_else(syn::Error::into_compile_error);
    }
    let at = match &lifted[..] {
        [one] if n.inputs.is_none() && !extended => quote!(#one),
        many => quote!((#(#many),*)),
    };
    quote!(::diff::#op!(at: #at, of: #of))
}

/// Whether `ts` calls an operator that nests ([`NESTABLE`]).
fn names_an_operator(ts: TokenStream) -> bool {
    let tokens: Vec<proc_macro2::TokenTree> = ts.into_iter().collect();
    tokens.iter().enumerate().any(|(i, t)| match t {
        proc_macro2::TokenTree::Ident(id) => {
            NESTABLE.iter().any(|n| id == n)
                && matches!(tokens.get(i + 1), Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '!')
        }
        proc_macro2::TokenTree::Group(g) => names_an_operator(g.stream()),
        _ => false,
    })
}

/// `second_derivative!(at: x, of: f)` and `value_with_second_derivative!`, forward over
/// reverse like `hessian!` for one scalar: `f`'s value and derivative run on the dual
/// number `x + ε`; the derivative's dual part is `f''(x)`.
fn second_derivative(op: Op, ins: &[syn::Expr], of: &syn::Expr) -> syn::Result<TokenStream> {
    let typed: Vec<syn::Expr> = ins.iter().map(typed_literal).collect();
    let [x] = &typed[..] else {
        return Err(syn::Error::new_spanned(
            of,
            "second_derivative! takes one scalar input; for several inputs use hessian!",
        ));
    };
    let value_and_slope = match (dual_path(of), of) {
        (Some(p), _) => dual_gradient(&p, &[quote!(__lifted)], second_order_of(of)),
        (None, syn::Expr::Closure(c)) => closure(
            Op::ValueWithGradient,
            &[syn::parse_quote!(__lifted)],
            c,
            true,
        )?,
        (None, _) => expand_args(
            Op::ValueWithGradient,
            Args {
                at: syn::parse_quote!(__lifted),
                of: on_duals(of),
            },
        )?,
    };
    let out = if op == Op::SecondDerivative {
        quote!(__slope.eps)
    } else {
        quote!((__value.re, __slope.re, __slope.eps))
    };
    Ok(quote! {{
        let __lifted = ::diff::__private::Dual::variable(#x);
        let (__value, __slope) = #value_and_slope;
        #out
    }})
}

/// `jacobian!(at: x, of: f)` for an owned point: `f` in both modes, so that the runtime
/// takes rows by reverse sweeps when the inputs outnumber twice the outputs, columns by
/// forward mode otherwise (`jacobian_auto`).
fn jacobian(ins: &[syn::Expr], of: &syn::Expr) -> syn::Result<TokenStream> {
    let typed: Vec<syn::Expr> = ins.iter().map(typed_literal).collect();
    // Several inputs are one point, a tuple, whose fields the function takes in order.
    let (x, at): (TokenStream, syn::Expr) = match &typed[..] {
        [one] => (one.to_token_stream(), syn::parse_quote!(__point)),
        many => {
            // An input given by reference (`at: (&a, &b)`) is a copy in the point
            // (owned, as for `at: &x`), passed by reference.
            let fields = tuple_fields(&format_ident!("__point"), many.len());
            let owned = many.iter().map(|e| match e {
                syn::Expr::Reference(_) => quote!(::std::borrow::ToOwned::to_owned(#e)),
                e => e.to_token_stream(),
            });
            let fields = fields.iter().zip(many).map(|(f, e)| -> syn::Expr {
                match e {
                    syn::Expr::Reference(_) => syn::parse_quote!(&#f),
                    _ => f.clone(),
                }
            });
            (quote!((#(#owned,)*)), syn::parse_quote!((#(#fields),*)))
        }
    };
    let point = |op| {
        expand_args(
            op,
            Args {
                at: at.clone(),
                of: of.clone(),
            },
        )
    };
    let (forward, reverse) = (
        point(Op::ValueWithDifferential)?,
        point(Op::ValueWithPullback)?,
    );
    Ok(quote! {{
        let __point = #x;
        ::diff::__private::jacobian_auto(__point, |__point| #forward, |__point| #reverse)
    }})
}

/// The types a closure's parameters declare (`|w: &[f64], k|`: `&[f64]`, then `None`).
fn declared_types<'a>(params: impl IntoIterator<Item = &'a syn::Pat>) -> Vec<Option<syn::Type>> {
    params
        .into_iter()
        .map(|p| match p {
            syn::Pat::Type(t) => Some((*t.ty).clone()),
            _ => None,
        })
        .collect()
}

/// `tuple.0, tuple.1, ..`: the `n` fields of the tuple named `tuple`, as expressions.
fn tuple_fields(tuple: &Ident, n: usize) -> Vec<syn::Expr> {
    (0..n)
        .map(|i| {
            let i = syn::Index::from(i);
            syn::parse_quote!(#tuple.#i)
        })
        .collect()
}

/// `hessian!(at: x, of: f)`, forward over reverse: the gradient of `f` run on dual
/// numbers (`f`'s dual companion, or a closure), once per input coordinate, with that
/// coordinate's dual part set; the gradient's dual parts are a column. Several inputs
/// (`at: (x, y)`) are the coordinates of one point, in order.
fn hessian(ins: &[syn::Expr], of: &syn::Expr) -> syn::Result<TokenStream> {
    let typed: Vec<syn::Expr> = ins.iter().map(typed_literal).collect();
    // The closure's declared types, all of them, as the point's: they pin a point whose
    // float type is still open (`let q = vec![0.4, -0.9];`), which the gradient on dual
    // numbers does not.
    let declared: Option<Vec<syn::Type>> = match of {
        syn::Expr::Closure(c) => declared_types(&c.inputs).into_iter().collect(),
        _ => None,
    };
    let ty = match declared.as_deref() {
        Some([one]) => quote!(: #one),
        Some(many) if many.len() == ins.len() && many.len() > 1 => quote!(: (#(#many,)*)),
        _ => TokenStream::new(),
    };
    let x = match &typed[..] {
        [one] => one,
        many => {
            let lifted = tuple_fields(&format_ident!("__lifted"), many.len());
            let grad = dual_column(of, &lifted)?;
            return Ok(quote! {{
                let __input #ty = (#(#many,)*);
                ::diff::__private::hessian(&__input, |__lifted| #grad)
            }});
        }
    };
    // `at: &[1.0, 2.0]` or `at: &arr` for a closure taking a slice: the point is the
    // slice (an array's gradient would be an array).
    let slice_closure = matches!(of, syn::Expr::Closure(c) if matches!(c.inputs.first(),
        Some(syn::Pat::Type(t)) if matches!(&*t.ty, syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Slice(_)))));
    let as_slice: syn::Expr;
    let x = match x {
        syn::Expr::Reference(r) if slice_closure && r.mutability.is_none() => {
            let array = &r.expr;
            as_slice = syn::parse_quote!(&(#array)[..]);
            &as_slice
        }
        _ => x,
    };
    let (lifted, input): (syn::Expr, TokenStream) = match x {
        syn::Expr::Reference(_) => (syn::parse_quote!(&__lifted), quote!(__input)),
        _ => (syn::parse_quote!(__lifted), quote!(&__input)),
    };
    let grad = dual_column(of, std::slice::from_ref(&lifted))?;
    Ok(quote! {{
        let __input #ty = #x;
        ::diff::__private::hessian(#input, |__lifted| #grad)
    }})
}

/// The gradient of `of` at the dual numbers `lifted` (one expression per input): a
/// column of the Hessian in its dual parts.
fn dual_column(of: &syn::Expr, lifted: &[syn::Expr]) -> syn::Result<TokenStream> {
    Ok(match (dual_path(of), of) {
        (Some(p), _) => {
            let args: Vec<TokenStream> = lifted.iter().map(ToTokens::to_token_stream).collect();
            let value_and_gradient = dual_gradient(&p, &args, second_order_of(of));
            quote! {{ let (_, __gradient) = #value_and_gradient; __gradient }}
        }
        (None, syn::Expr::Closure(c)) => closure(Op::Gradient, lifted, c, true)?,
        (None, _) => {
            let at: syn::Expr = match lifted {
                [one] => one.clone(),
                many => syn::parse_quote!((#(#many),*)),
            };
            expand_args(
                Op::Gradient,
                Args {
                    at,
                    of: on_duals(of),
                },
            )?
        }
    })
}

/// The first call in `c`'s body (outside `no_derivative(..)`) of a closure held in a
/// variable of the function around the operator (`let f = |x| ..;` then `of: |p| f(p)`):
/// a name neither bound in `c` nor a function, as the source file shows
/// (`source::is_local_variable`).
fn captured_closure_call(c: &syn::ExprClosure) -> Option<syn::ExprCall> {
    struct Calls<'a> {
        inner: Vec<String>,
        found: &'a mut Option<syn::ExprCall>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Calls<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.inner.push(p.ident.to_string());
        }
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*call.func {
                if p.path.is_ident("no_derivative") {
                    return;
                }
                if let Some(id) = p.path.get_ident() {
                    if self.found.is_none()
                        && !self.inner.contains(&id.to_string())
                        && crate::source::is_local_variable(id)
                    {
                        *self.found = Some(call.clone());
                    }
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut found = None;
    let mut calls = Calls {
        inner: Vec::new(),
        found: &mut found,
    };
    syn::visit::Visit::visit_expr_closure(&mut calls, c);
    found
}
