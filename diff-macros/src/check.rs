//! Differentiability diagnostics: after activity analysis, refuse what would otherwise
//! compile and compute a wrong derivative.
use crate::analysis::activity::Activity;
use crate::errors::Errors;
use crate::ir::{Borrow, Callee, Function, Inst};

/// Records every refusal in `errors`; returns whether the function can be differentiated.
pub fn check(func: &Function, act: &Activity, errors: &mut Errors) -> bool {
    let before = errors.len();
    let mut add = |e: syn::Error| errors.push(e);
    // The closures given as parameters already refused: one error for each.
    let mut given = Vec::new();
    // The values of expressions refused: what is computed from them is not refused
    // again (`df(v)` after `let df = differential!(..)`).
    let mut refused = std::collections::BTreeSet::new();
    for region in &func.regions {
        for stmt in &region.stmts {
            let active = stmt.results.iter().any(|v| act.is_active(*v));
            if let (Inst::Opaque(o), true) = (&stmt.inst, active) {
                let after_a_refusal = o.uses.iter().any(|u| refused.contains(u));
                refused.extend(stmt.results.iter().copied());
                if after_a_refusal {
                    continue;
                }
            }
            match &stmt.inst {
                Inst::Opaque(o)
                    if active
                        && o.what.starts_with(crate::lower::opaque::GIVEN_CLOSURE)
                        && !given.contains(&o.what) =>
                {
                    given.push(o.what.clone());
                    add(syn::Error::new(
                        stmt.span,
                        format!("cannot differentiate through this {}", o.what),
                    ))
                }
                // (Reported at its first call.)
                Inst::Opaque(o) if o.what.starts_with(crate::lower::opaque::GIVEN_CLOSURE) => {}
                Inst::Opaque(o)
                    if active
                        && (o.what.starts_with(crate::lower::iterators::UNDIFFERENTIATED_CHAIN)
                            || o.what.starts_with(crate::lower::opaque::SECOND_ORDER_OPERATOR)
                            || o.what.starts_with(crate::lower::opaque::CLOSURE_OPERATOR)) =>
                {
                    add(syn::Error::new(
                        stmt.span,
                        format!("cannot differentiate through this {}", o.what),
                    ))
                }
                Inst::Opaque(o) if active => add(syn::Error::new(
                    stmt.span,
                    format!(
                        "cannot differentiate through this {}: an active value flows through it; compute it from differentiable operations, or wrap it in no_derivative(...) if its derivative should be zero",
                        o.what
                    ),
                )),
                Inst::Call(callee, args) | Inst::CallMut(callee, args, _)
                    if stmt.results.iter().any(|r| act.useful.contains(r))
                        && !matches!(callee, Callee::Path(p) if crate::ir::is_library_path(p))
                        && args.iter().any(|a| varied_range(func, act, *a).is_some()) =>
                {
                    for span in args.iter().filter_map(|a| varied_range(func, act, *a)) {
                        add(syn::Error::new(
                            span,
                            "a range of floats (`Range<f64>`) has no tangent, so it cannot carry the derivative of its ends: pass the ends as separate parameters (`start: f64, end: f64`) or in a tuple, or wrap them in no_derivative(..) if their derivative should be zero",
                        ));
                    }
                }
                Inst::Call(Callee::Path(p), _) | Inst::CallMut(Callee::Path(p), _, _)
                    if active && standard_library(p) =>
                {
                    let name = crate::ir::segment_names(&p.path).join("::");
                    add(syn::Error::new_spanned(p, format!(
                        "`{name}` has no derivative: diff has no rule for this function of the standard library, and a derivative cannot be registered for it; write what it computes with differentiable operations (`if`, `f64::max`, arithmetic), or write no_derivative({name}(..)) if this call's derivative should be zero"
                    )));
                }
                Inst::Call(Callee::Path(p), args) | Inst::CallMut(Callee::Path(p), args, _)
                    if active =>
                {
                    if let Some(name) = free_function(p) {
                        for (k, param) in crate::source::left_out_by_wrt_of(stmt.span, &name) {
                            if args.get(k).is_some_and(|a| act.is_active(*a)) {
                                add(left_out_by_wrt(stmt.span, &name, &param));
                            }
                        }
                        if crate::source::has_no_derivative(stmt.span, &name) {
                            add(syn::Error::new(stmt.span, format!(
                                "`{name}` has no derivative: it is neither #[differentiable] nor registered; mark `fn {name}` #[differentiable], register its derivative with #[derivative(of = {name})], or write no_derivative({name}(..)) if this call's derivative should be zero"
                            )));
                        }
                    } else if let Some((ty, name)) = associated_function(p) {
                        if crate::source::method_has_no_derivative(stmt.span, &ty, &name) {
                            add(no_derivative_in_impl(stmt.span, &ty, &name));
                        }
                    }
                }
                Inst::Call(Callee::Method { method, user, .. }, args)
                | Inst::CallMut(Callee::Method { method, user, .. }, args, _)
                    if active =>
                {
                    let ty = func
                        .method_receivers
                        .iter()
                        .find(|(v, _)| *v == stmt.results[0])
                        .map(|(_, t)| t);
                    let method_span = method.span();
                    // (Once, where the chain begins.)
                    let of_a_chain = |v: &crate::ir::Value| {
                        func.def(*v).is_some_and(|d| matches!(&d.inst,
                            Inst::Call(Callee::Method { method, .. }, _)
                                if crate::lower::iterators::is_chain_method(method)))
                    };
                    let users = crate::lower::iterators::is_users_adapter_named(
                        method,
                        args.len().saturating_sub(1),
                    );
                    if crate::lower::iterators::is_chain_method(method) && !users {
                        if args.first().is_some_and(of_a_chain) {
                            continue;
                        }
                        add(syn::Error::new(method_span, format!(
                            "cannot differentiate through `.{method}(..)` here: an iterator over values that carry a derivative is differentiated where a chain is consumed in the same expression (`xs.iter().map(..).sum()`, `.product()`, `.fold(..)`, `.collect()`, `.min_by(..).unwrap()`, `.find(..)`) or looped over by `for` (or by `while let Some(x) = it.next()`, `it` used nowhere else); write the chain in one expression, or a `for` loop over indices"
                        )));
                        continue;
                    }
                    // (A name the library differentiates, `x.tanh()`, is its rule's.)
                    let rule = crate::lifting::calls_rule(method, *user);
                    let method = method.to_string();
                    if let Some(ty) = ty {
                        for (k, param) in
                            crate::source::method_left_out_by_wrt_of(stmt.span, ty, &method)
                        {
                            if args.get(k).is_some_and(|a| act.is_active(*a)) {
                                add(left_out_by_wrt(stmt.span, &format!("{ty}::{method}"), &param));
                            }
                        }
                    }
                    if let Some(ty) = ty.filter(|ty| {
                        crate::source::method_has_no_derivative(stmt.span, ty, &method)
                    }) {
                        add(no_derivative_in_impl(method_span, ty, &method));
                    } else if let Some((tr, impl_marks)) = (!rule)
                        .then(|| crate::source::unmarked_trait_method(stmt.span, &method))
                        .flatten()
                    {
                        add(syn::Error::new(method_span, unmarked_in_trait(&tr, &method, impl_marks)));
                    }
                }
                // A struct literal of a type its definition does not make Differentiable,
                // holding a value that carries a derivative (`Contract { strike, .. }`).
                Inst::Struct(p, fields)
                    if fields.iter().any(|(_, v)| act.is_active(*v))
                        && stmt.results.iter().any(|r| act.useful.contains(r))
                        && p.segments.last().is_some_and(|s| {
                            crate::source::differentiable_type(s.ident.span(), &s.ident.to_string())
                                == Some(false)
                        }) =>
                {
                    let name = p.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                    add(syn::Error::new_spanned(p, format!(
                        "`{name}` is not Differentiable, so a value of it cannot carry the derivative of the fields it is built from: add #[derive(Differentiable)] to `struct {name}` (with #[no_derivative] on fields that carry none), or wrap the fields' values in no_derivative(..) if their derivative should be zero"
                    )));
                }
                Inst::Ref(_, Borrow::Mut) if active => add(syn::Error::new(
                    stmt.span,
                    "`&mut` of an active value is not supported in a #[differentiable] body yet",
                )),
                Inst::Match { scrutinee, arms } if act.varied.contains(scrutinee) && arms.iter().any(|a| func.region(a.region).params.iter().any(|p| act.useful.contains(p))) => add(syn::Error::new(
                    // At the first pattern binding a part.
                    arms.iter()
                        .find(|a| func.region(a.region).params.iter().any(|p| act.useful.contains(p)))
                        .map_or(stmt.span, |a| syn::spanned::Spanned::span(&a.pat)),
                    "this pattern binds part of a value that carries a derivative, which is supported for tuples, slices, arrays, structs named without a path (`Point { x, .. }`) and `Option`s only (an enum has no tangent to carry it); hold the parts in a tuple or a struct and match on a plain tag beside them (`(Kind::Circle, r)`), or, if the value should carry no derivative, match on `no_derivative(..)` of it",
                )),
                Inst::For { iter, .. } if act.varied.contains(iter) => {
                    let chain = match func.def(*iter) {
                        Some(def) => match &def.inst {
                            Inst::Opaque(o) if o.what.starts_with(crate::lower::iterators::UNDIFFERENTIATED_CHAIN) => Some((o.what.clone(), def.results.iter().any(|v| act.is_active(*v)))),
                            _ => None,
                        },
                        None => None,
                    };
                    match chain {
                        // (Refused where it is made.)
                        Some((_, true)) => {}
                        // An iterator chain that is not rewritten: what to write instead.
                        Some((what, false)) => add(syn::Error::new(stmt.span, format!("cannot differentiate through this {what}"))),
                        None => add(syn::Error::new(
                            stmt.span,
                            "iterating directly over active values is not supported yet; loop over indices instead (`for i in 0..xs.len()` and `xs[i]`)",
                        )),
                    }
                }
                _ => {}
            }
        }
    }
    for (at, through) in float_rebuilt_from_bits(func, act) {
        let how = match through {
            None => "`f64::from_bits` of bits computed from it".to_string(),
            Some(f) => format!("`{f}` given `x.to_bits()`, which carries no derivative"),
        };
        add(syn::Error::new_spanned(
            at,
            format!("a float rebuilt from the bits of a value that carries a derivative ({how}) would lose its derivative, which is not zero: compute it with float operations (`x * 2f64.powi(e)`), register this function's derivative with #[derivative(of = ..)], or wrap the result in no_derivative(..) if its derivative should be zero"),
        ));
    }
    // A `&mut` parameter left out of `wrt` has no slot for the derivative of what the
    // body writes into it.
    let yields = &func.region(func.entry()).yields;
    for (k, i) in func.mutated.iter().enumerate() {
        let written = yields.get(k + 1).is_some_and(|v| act.is_active(*v));
        let param = func.param_value(*i).filter(|p| !act.varied.contains(p));
        if let Some(stmt) = param.filter(|_| written).and_then(|p| func.def(p)) {
            add(syn::Error::new(
                stmt.span,
                "this `&mut` parameter is changed to a value that depends on the differentiated parameters, but is not one of them: add it to `wrt`, or write no_derivative(..) around the value written into it",
            ));
        }
    }
    errors.len() == before
}

/// The conversions of a float to its bits, and back.
const TO_BITS: &[&str] = &["to_bits", "to_le_bytes", "to_be_bytes", "to_ne_bytes"];
const FROM_BITS: &[&str] = &[
    "from_bits",
    "from_le_bytes",
    "from_be_bytes",
    "from_ne_bytes",
];

/// Where the body rebuilds a float the result needs from bits that come from a value that
/// carries a derivative: `f64::from_bits(..)` of integers computed from it (`x.to_bits()`,
/// or a helper's `get_high_word(x)`), or a call of a function without a derivative given
/// `x.to_bits()` (`from_u64(x.to_bits())`) whose result the derivative needs. The bits are
/// integers, which carry nothing, so the round trip would cut a derivative that is not
/// zero (`ldexp` written on the exponent's bits is `x * 2^e`). Bits only compared, or a
/// float built from a literal's bits, are not refused.
fn float_rebuilt_from_bits(
    func: &Function,
    act: &Activity,
) -> Vec<(proc_macro2::TokenStream, Option<String>)> {
    let named = |callee: &Callee, names: &[&str]| match callee {
        Callee::Method { method, .. } => names.iter().any(|n| method == n),
        Callee::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| names.iter().any(|n| s.ident == n)),
        _ => false,
    };
    let bits_of_varied = |v: &crate::ir::Value| {
        matches!(func.def_inst(*v), Some(Inst::Call(callee, args))
            if named(callee, TO_BITS) && args.first().is_some_and(|a| act.varied.contains(a)))
    };
    let at = |s: &crate::ir::Stmt, callee: &Callee| match callee {
        Callee::Path(p) => quote::ToTokens::to_token_stream(p),
        Callee::Method { method, .. } => quote::quote_spanned!(s.span=> #method),
        _ => quote::quote_spanned!(s.span=> from_bits),
    };
    func.regions
        .iter()
        .flat_map(|r| r.stmts.iter())
        .filter(|s| s.results.iter().any(|r| act.useful.contains(r)))
        .filter_map(|s| match &s.inst {
            Inst::Call(callee, args) if named(callee, FROM_BITS) => args
                .iter()
                .any(|a| depends_on(func, *a, &|v| act.varied.contains(v)))
                .then(|| (at(s, callee), None)),
            // (A function of the crate: a method or a rule of std given the bits, such as
            // `2f64.powi(e)` of the exponent's bits, is piecewise constant as written.)
            Inst::Call(callee @ Callee::Path(p), args)
                if !named(callee, TO_BITS)
                    && !crate::ir::is_library_path(p)
                    && !s.results.iter().any(|r| act.varied.contains(r)) =>
            {
                let name = p.path.segments.last().map(|f| f.ident.to_string());
                args.iter()
                    .any(|a| depends_on(func, *a, &bits_of_varied))
                    .then(|| (at(s, callee), name))
            }
            _ => None,
        })
        .collect()
}

/// Whether `v`, or a value it is computed from (through the instructions that define
/// them, in the same function), satisfies `hit`.
fn depends_on(
    func: &Function,
    v: crate::ir::Value,
    hit: &dyn Fn(&crate::ir::Value) -> bool,
) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![v];
    while let Some(w) = stack.pop() {
        if !seen.insert(w) || seen.len() > 4096 {
            continue;
        }
        if hit(&w) {
            return true;
        }
        if let Some(def) = func.def(w) {
            stack.extend(def.inst.operands());
        }
    }
    false
}

/// Where `v` is a range (`a..b`, carrying nothing) built of values that carry a
/// derivative: given to a function, a `Range<f64>` would lose theirs.
fn varied_range(func: &Function, act: &Activity, v: crate::ir::Value) -> Option<proc_macro2::Span> {
    let def = func.def(v)?;
    match &def.inst {
        Inst::Opaque(o) if o.what == "range" && o.uses.iter().any(|u| act.varied.contains(u)) => {
            Some(def.span)
        }
        _ => None,
    }
}

/// The refusal of an argument carrying a derivative given for the parameter `param`
/// that the `wrt` of the function `name` leaves out.
fn left_out_by_wrt(span: proc_macro2::Span, name: &str, param: &str) -> syn::Error {
    syn::Error::new(span, format!(
        "`{name}` is not differentiated with respect to its parameter `{param}` (its `wrt` leaves it out), but the value given for it carries a derivative: add `{param}` to the `wrt` of `{name}`, or write no_derivative(..) around the argument"
    ))
}

/// The refusal of a call of the method `method` of trait `tr`, which does not mark it;
/// `impl_marks`: an `impl` of the trait marks it (refused there too).
fn unmarked_in_trait(tr: &str, method: &str, impl_marks: bool) -> String {
    let fix = format!("mark `fn {method}` in `trait {tr}` #[differentiable]");
    if impl_marks {
        format!("`{method}` has no derivative through `trait {tr}`, which does not mark it (see the error at its `impl`): {fix} too")
    } else {
        format!("`{method}` of `trait {tr}` has no derivative: {fix}, and its implementations too, or write no_derivative(..) around the call if its derivative should be zero")
    }
}

/// The refusal of a call of `ty::name`, defined in `impl ty` without a derivative.
fn no_derivative_in_impl(span: proc_macro2::Span, ty: &str, name: &str) -> syn::Error {
    syn::Error::new(span, format!(
        "`{ty}::{name}` has no derivative: it is neither #[differentiable] nor registered; mark `fn {name}` in `impl {ty}` #[differentiable], register its derivative with #[derivative(of = {ty}::{name})], or write no_derivative(..) around the call if its derivative should be zero"
    ))
}

/// The type and the function of a path naming an associated function (`Params::new`,
/// `m::Params::new`): its last two segments, the type's name capitalized.
fn associated_function(p: &syn::ExprPath) -> Option<(String, String)> {
    let n = p.path.segments.len();
    if p.qself.is_some() || n < 2 {
        return None;
    }
    let ty = p.path.segments[n - 2].ident.to_string();
    let name = p.path.segments[n - 1].ident.to_string();
    ty.starts_with(|c: char| c.is_uppercase())
        .then_some((ty, name))
        .filter(|(ty, _)| ty != "Self")
}

/// Whether `p` is a path into the standard library (`std::cmp::max_by`,
/// `::core::mem::take`): what the lowering does not rewrite of it has no rule.
fn standard_library(p: &syn::ExprPath) -> bool {
    p.qself.is_none()
        && p.path.segments.len() > 1
        && (p.path.segments.first())
            .is_some_and(|s| ["std", "core", "alloc"].contains(&s.ident.to_string().as_str()))
}

/// The name of the free function a path calls by its name alone (`g`, `self::g`,
/// `super::g`, `crate::g`), whose definition the file may show.
fn free_function(p: &syn::ExprPath) -> Option<String> {
    let last = p.path.segments.last()?;
    (p.qself.is_none() && crate::emit::names::by_name_alone(&p.path))
        .then(|| last.ident.to_string())
}
