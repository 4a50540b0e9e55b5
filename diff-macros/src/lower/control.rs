//! Structured control flow: `if` and counted `for` loops become statements with nested
//! regions; variables a branch or a loop body assigns become region yields.
use super::env::{Env, Var};
use super::Lowerer;
use crate::ir::{Inst, RegionId, Stmt, Value};
use syn::spanned::Spanned;

/// A lowered branch of an `if` or `match`.
pub(crate) struct Branch {
    region: RegionId,
    value: Value,
    env: Env,
    diverged: bool,
}

impl Lowerer {
    /// Runs `f` with statements going to region `r`; returns what `f` returned and the
    /// variables as they were at its end, then restores them to `before`.
    fn in_region<T>(
        &mut self,
        r: RegionId,
        before: &Env,
        f: impl FnOnce(&mut Self) -> syn::Result<T>,
    ) -> syn::Result<(T, Env)> {
        let saved = self.current;
        self.current = r;
        let out = f(self);
        self.current = saved;
        let after = std::mem::replace(&mut self.env, before.clone());
        Ok((out?, after))
    }

    fn value_in(env: &Env, var: Var) -> Value {
        env.value(var).expect("a variable keeps a value")
    }

    /// `if c { a } else { b }`: the branches yield the `if`'s value, then every outer
    /// variable either branch assigns.
    pub(crate) fn lower_if(&mut self, e: &syn::ExprIf) -> syn::Result<Value> {
        self.lower_if_with(
            e,
            |cx| cx.lower_block_value(&e.then_branch),
            |cx| match &e.else_branch {
                Some((_, els)) => cx.lower_expr(els),
                None => Ok(cx.unit(e.span())),
            },
        )
    }

    /// An `if` whose branches are lowered by `then_f` and `else_f`. The `if` exits early
    /// only when both branches do.
    pub(crate) fn lower_if_with(
        &mut self,
        e: &syn::ExprIf,
        then_f: impl FnOnce(&mut Self) -> syn::Result<Value>,
        else_f: impl FnOnce(&mut Self) -> syn::Result<Value>,
    ) -> syn::Result<Value> {
        if let syn::Expr::Let(l) = &*e.cond {
            return Err(super::expr::unsupported(l, "`if let`"));
        }
        let cond = self.in_expression(|cx| cx.lower_expr(&e.cond))?;
        let before = self.env.clone();
        let then_r = self.func.new_region();
        let else_r = self.func.new_region();
        let outer = self.diverged;
        let then_b = self.branch(then_r, &before, outer, then_f)?;
        let else_b = self.branch(else_r, &before, outer, else_f)?;
        let inst = Inst::If {
            cond,
            then_region: then_r,
            else_region: else_r,
        };
        self.join(&before, outer, vec![then_b, else_b], inst, e.span())
    }

    /// Lowers one branch into region `r`, from the scopes `before`.
    pub(crate) fn branch(
        &mut self,
        r: RegionId,
        before: &Env,
        outer_diverged: bool,
        f: impl FnOnce(&mut Self) -> syn::Result<Value>,
    ) -> syn::Result<Branch> {
        let (value, env) = self.in_region(r, before, f)?;
        let diverged = std::mem::replace(&mut self.diverged, outer_diverged);
        Ok(Branch {
            region: r,
            value,
            env,
            diverged,
        })
    }

    /// Joins branches: each region yields its value, then every variable declared before
    /// that any branch assigns; the statement's results rebind them. Exits early only when
    /// every branch does.
    pub(crate) fn join(
        &mut self,
        before: &Env,
        outer_diverged: bool,
        branches: Vec<Branch>,
        inst: Inst,
        span: proc_macro2::Span,
    ) -> syn::Result<Value> {
        self.diverged = outer_diverged || branches.iter().all(|b| b.diverged);
        let mut vars: Vec<Var> = branches
            .iter()
            .flat_map(|b| before.changed_in(&b.env))
            .collect();
        vars.sort();
        vars.dedup();
        for b in &branches {
            let mut ys = vec![b.value];
            ys.extend(vars.iter().map(|v| Self::value_in(&b.env, *v)));
            self.func.region_mut(b.region).yields = ys;
        }
        let result = self.func.new_value(None, span);
        let mut results = vec![result];
        for v in &vars {
            let name = self.var_name(*v).to_string();
            results.push(self.func.new_value(Some(name), span));
        }
        self.push(Stmt {
            results: results.clone(),
            inst,
            span,
        });
        for (var, v) in vars.iter().zip(&results[1..]) {
            self.set(*var, *v);
        }
        Ok(result)
    }

    /// `while c { body }` is `loop { if !(c) { break; } body }`.
    pub(crate) fn lower_while(&mut self, w: &syn::ExprWhile) -> syn::Result<Value> {
        if let syn::Expr::Let(l) = &*w.cond {
            // `while let P = e { body }` is `loop { match e { P => { body } _ => break } }`.
            let (pat, e, body) = (&l.pat, &l.expr, &w.body);
            let lp: syn::ExprLoop = syn::parse_quote_spanned! {w.span()=> loop { match #e { #pat => #body, _ => break } } };
            return self.lower_loop(&lp);
        }
        if super::expr::has_let_chain(&w.cond) {
            // `while let P = e && c { body }` (edition 2024) is `loop { if let P = e && c
            // { body } else { break } }`.
            let (cond, body) = (&w.cond, &w.body);
            let lp: syn::ExprLoop =
                syn::parse_quote_spanned! {w.span()=> loop { if #cond #body else { break } } };
            return self.lower_loop(&lp);
        }
        if let Some(l) = &w.label {
            return Err(super::expr::unsupported(l, "a labelled loop"));
        }
        let (cond, stmts) = (&w.cond, &w.body.stmts);
        let f: syn::ExprForLoop = syn::parse_quote_spanned! {w.span()=>
            for _ in 0usize.. { if !(#cond) { break; } #(#stmts)* }
        };
        self.lower_for(&f)
    }

    /// `loop { body }` is `for _ in 0usize.. { body }`.
    pub(crate) fn lower_loop(&mut self, l: &syn::ExprLoop) -> syn::Result<Value> {
        if let Some(label) = &l.label {
            return Err(super::expr::unsupported(label, "a labelled loop"));
        }
        let stmts = &l.body.stmts;
        let f: syn::ExprForLoop =
            syn::parse_quote_spanned! {l.span()=> for _ in 0usize.. { #(#stmts)* } };
        self.lower_for(&f)
    }

    /// `for pat in iter { body }`: the body region takes the carried variables and the
    /// iteration value, and yields the carried variables.
    pub(crate) fn lower_for(&mut self, f: &syn::ExprForLoop) -> syn::Result<Value> {
        if let Some(l) = &f.label {
            return Err(super::expr::unsupported(l, "a labelled loop"));
        }
        if let syn::Expr::Path(p) = &*f.expr {
            if p.path
                .get_ident()
                .is_some_and(|i| self.holds_reference(&i.to_string()))
            {
                let mut f = f.clone();
                let xs = &p.path;
                f.expr = syn::parse_quote!(#xs.iter());
                return self.lower_for(&f);
            }
        }
        // `for x in f(y).iter() { .. }`, `for v in [a, b, c] { .. }`: the collection
        // bound first, then looped over as a local one.
        let bound = super::iterators::hoisted_root(&f.expr, true).or_else(|| {
            is_literal_collection(&f.expr)
                .then(|| ((*f.expr).clone(), syn::parse_quote!(__diff_collection)))
        });
        if let Some((root, chain)) = bound {
            let mut f = f.clone();
            *f.expr = chain;
            return self.lower_expr(&syn::parse_quote!({
                let __diff_collection = #root;
                #f
            }));
        }
        if let Some(e) = super::iterators::flattened_loop(f) {
            return self.lower_expr(&e);
        }
        if let Some(rewritten) =
            super::iterators::iter_mut_loop(f).or_else(|| super::iterators::chunks_mut_loop(f))
        {
            return self.lower_expr(&rewritten);
        }
        if let Some(name) = super::iterators::iter_mut_shadowed(f) {
            return Err(syn::Error::new(
                name.span(),
                format!("this loop writes through `iter_mut()`, and its body binds `{name}` again, which the macro cannot follow; give the inner binding another name"),
            ));
        }
        let holds_iterator = match &*f.expr {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.lookup(&i.to_string()))
                .is_some_and(|v| self.is_iterator(v)),
            _ => false,
        };
        // (A parameter of a generic type is iterated as it is, never indexed.)
        let of_iterable = self.roots_in_iterable(&f.expr);
        if let Some(chain) = self
            .chain(&f.expr)
            .filter(|_| !holds_iterator && !of_iterable)
        {
            if self.is_collection(&f.expr) {
                return match chain.for_loop(f) {
                    syn::Expr::ForLoop(l) => self.lower_for(&l),
                    block => self.lower_expr(&block),
                };
            }
        }
        // A chain through an adapter or an order of adapters that is not rewritten: one
        // value, which the check refuses with what to write instead if it is active.
        let iter = if super::iterators::undifferentiated_chain(&f.expr).is_some() {
            self.opaque_inactive(&f.expr, false)
        } else {
            self.lower_iterable(&f.expr)?
        };
        let before = self.env.clone();
        if self.probing > 0 {
            // Inside an enclosing loop's first pass only the assignments count: this
            // body's first pass logs them all, so it is the only one. Each loop body is
            // then lowered once per enclosing loop, not twice per level.
            self.first_pass(f, &before)?;
            return Ok(self.unit(f.span()));
        }
        // First pass: find which outer variables the body assigns. Every one is carried,
        // whatever value it is assigned (`x_prev = x` where both start equal included).
        let mark = self.assignment_mark();
        let errors_before = self.errors.len();
        let probe = self.func.clone();
        self.probing += 1;
        let first = self.first_pass(f, &before);
        self.probing -= 1;
        let has_stop = first?;
        let vars = self.assigned_since(mark, &before);
        self.func = probe;
        // The second pass reports the body's errors.
        self.errors.truncate(errors_before);
        // Second pass: lower the body with the carried variables as region parameters.
        let body = self.func.new_region();
        let init: Vec<Value> = vars.iter().map(|v| Self::value_in(&before, *v)).collect();
        let mut params = Vec::new();
        for var in &vars {
            let name = self.var_name(*var).to_string();
            let p = self.func.new_value(Some(name), f.span());
            params.push(p);
            self.set(*var, p);
        }
        let item = self.func.new_value(None, f.pat.span());
        params.push(item);
        let inner_before = self.env.clone();
        self.loops.push(super::LoopCx::default());
        // `break` and `continue` end the body's region: statements in the body again.
        let exit_ok = std::mem::replace(&mut self.exit_ok, true);
        let (stop_var, body_env) = self.in_region(body, &inner_before, |cx| {
            cx.push_scope();
            let no = cx.emit(Inst::Const(quote::quote!(false)), f.span(), None);
            cx.bind(super::diverge::STOP.to_string(), no);
            let stop_var = cx.binding(super::diverge::STOP).expect("just bound");
            cx.bind_pattern(&f.pat, item)?;
            cx.lower_block_value(&f.body)?;
            Ok(stop_var)
        })?;
        self.loops.pop();
        self.exit_ok = exit_ok;
        self.diverged = false;
        // The body may rebind no outer variable the loop does not carry.
        if let Some(v) = inner_before
            .changed_in(&body_env)
            .into_iter()
            .find(|v| !vars.contains(v))
        {
            return Err(syn::Error::new(
                f.span(),
                format!("internal error of #[differentiable]: this loop updates `{}` without carrying it; please report it", self.var_name(v)),
            ));
        }
        self.env = before;
        let mut yields: Vec<Value> = vars.iter().map(|v| Self::value_in(&body_env, *v)).collect();
        if has_stop {
            yields.push(Self::value_in(&body_env, stop_var));
        }
        let region = self.func.region_mut(body);
        region.params = params;
        region.yields = yields;
        let results: Vec<Value> = vars
            .iter()
            .map(|v| {
                let name = self.var_name(*v).to_string();
                self.func.new_value(Some(name), f.span())
            })
            .collect();
        self.push(Stmt {
            results: results.clone(),
            inst: Inst::For {
                iter,
                init,
                body,
                stop: has_stop,
            },
            span: f.span(),
        });
        for (var, v) in vars.iter().zip(&results) {
            self.set(*var, *v);
        }
        Ok(self.unit(f.span()))
    }

    /// Lowers a loop's body once, into a region of its own, logging what it assigns;
    /// returns whether it breaks. The environment is `before` again afterwards.
    fn first_pass(&mut self, f: &syn::ExprForLoop, before: &Env) -> syn::Result<bool> {
        let r = self.func.new_region();
        self.loops.push(super::LoopCx::default());
        let exit_ok = std::mem::replace(&mut self.exit_ok, true);
        let out = self.in_region(r, before, |cx| {
            let item = cx.func.new_value(None, f.pat.span());
            cx.push_scope();
            let no = cx.emit(Inst::Const(quote::quote!(false)), f.span(), None);
            cx.bind(super::diverge::STOP.to_string(), no);
            cx.bind_pattern(&f.pat, item)?;
            cx.lower_block_value(&f.body)
        });
        self.diverged = false;
        self.exit_ok = exit_ok;
        let has_stop = self.loops.pop().is_some_and(|l| l.has_break);
        out.map(|_| has_stop)
    }

    /// Whether the chain `e` starts at a parameter of a generic type iterated as it is
    /// (`coefficients.into_iter()`, [`Lowerer::is_iterable`]).
    fn roots_in_iterable(&self, e: &syn::Expr) -> bool {
        let mut cur = e;
        loop {
            match cur {
                syn::Expr::MethodCall(m) => cur = &m.receiver,
                syn::Expr::Paren(p) => cur = &p.expr,
                syn::Expr::Path(p) => {
                    return p.path.get_ident().is_some_and(|i| self.is_iterable(i))
                }
                _ => return false,
            }
        }
    }

    /// Whether `name` is a parameter of a generic or `impl Trait` type iterated as it is
    /// (`Structs::iterables`).
    pub(crate) fn is_iterable(&self, name: &syn::Ident) -> bool {
        self.iterables.iter().any(|n| name == n)
    }

    /// Whether a chain's base is a local variable or a field of one (a collection to
    /// index), rather than an iterator such as a range bound to a name.
    fn is_collection(&self, e: &syn::Expr) -> bool {
        let mut cur = e;
        loop {
            match cur {
                syn::Expr::MethodCall(m) => cur = &m.receiver,
                syn::Expr::Reference(r) => cur = &r.expr,
                syn::Expr::Paren(p) => cur = &p.expr,
                syn::Expr::Field(f) => cur = &f.base,
                // A sub-slice (`&xs[1..]`): the collection it is part of.
                syn::Expr::Index(ix) => cur = &ix.expr,
                // Indices mapped to values (`parse_chain` takes only those).
                syn::Expr::Range(_) => return true,
                // A variable, or a path that names no variable: a constant or a static
                // (`TABLE`, `Self::COEFFS`).
                syn::Expr::Path(p) => return p.qself.is_none(),
                _ => return false,
            }
        }
    }

    /// The iterator of a `for` loop: kept as an opaque expression (ranges, `.iter()` of
    /// inactive data, `.rev()`, `.step_by(k)`).
    fn lower_iterable(&mut self, e: &syn::Expr) -> syn::Result<Value> {
        self.lower_expr(e)
    }
}

/// Whether `e` is a collection written out (`[a, b]`, `[x; 3]`, `vec![a, b]`, through
/// parentheses), which a `for` loop consumes by value.
fn is_literal_collection(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Paren(p) => is_literal_collection(&p.expr),
        syn::Expr::Array(_) | syn::Expr::Repeat(_) => true,
        syn::Expr::Macro(m) => m.mac.path.is_ident("vec"),
        _ => false,
    }
}
