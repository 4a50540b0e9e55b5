//! Statement sequences with early exits: `return`, `break` and `continue`.
//!
//! An `if` statement that may exit early absorbs the statements after it: they are
//! lowered at the end of each branch that falls through, so every path through the
//! regions is straight and the exits need no jumps (continuation absorption). A `break`
//! sets the loop's stop flag, which the loop body yields; `continue` ends the body's
//! region where it stands.
use super::Lowerer;
use crate::ir::{Inst, Value};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Stmt};

/// The name of the synthetic variable holding a loop body's stop flag.
pub(crate) const STOP: &str = "__diff_stop";

/// Whether `e` contains a `return`, or a `break`/`continue` of the enclosing loop.
pub(crate) fn may_exit(e: &Expr) -> bool {
    struct Finder {
        found: bool,
        loop_depth: usize,
    }
    impl<'a> Visit<'a> for Finder {
        fn visit_expr_return(&mut self, _: &'a syn::ExprReturn) {
            self.found = true;
        }
        fn visit_expr_break(&mut self, _: &'a syn::ExprBreak) {
            if self.loop_depth == 0 {
                self.found = true;
            }
        }
        fn visit_expr_continue(&mut self, _: &'a syn::ExprContinue) {
            if self.loop_depth == 0 {
                self.found = true;
            }
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            self.visit_expr(&f.expr);
            self.loop_depth += 1;
            self.visit_block(&f.body);
            self.loop_depth -= 1;
        }
        fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
            self.visit_expr(&w.cond);
            self.loop_depth += 1;
            self.visit_block(&w.body);
            self.loop_depth -= 1;
        }
        fn visit_expr_loop(&mut self, l: &'a syn::ExprLoop) {
            self.loop_depth += 1;
            self.visit_block(&l.body);
            self.loop_depth -= 1;
        }
    }
    let mut f = Finder {
        found: false,
        loop_depth: 0,
    };
    f.visit_expr(e);
    f.found
}

impl Lowerer {
    /// Lowers a sequence of statements; the last one, without `;`, is its value.
    pub(crate) fn lower_seq(&mut self, stmts: &[Stmt]) -> syn::Result<Value> {
        let n = stmts.len();
        for (i, stmt) in stmts.iter().enumerate() {
            if self.diverged {
                break;
            }
            let last = i + 1 == n;
            match stmt {
                Stmt::Expr(Expr::If(e), _)
                    if may_exit(&Expr::If(e.clone()))
                        && super::expr::desugar_if_let(e).is_none() =>
                {
                    return self.lower_if_absorbing(e, &stmts[i + 1..]);
                }
                Stmt::Expr(Expr::Block(b), _)
                    if b.label.is_none() && may_exit(&Expr::Block(b.clone())) =>
                {
                    // `{ ..exits.. } rest`: the block's statements, then the rest.
                    let inner = b.block.stmts.iter().cloned();
                    let seq: Vec<Stmt> = if last {
                        inner.collect()
                    } else {
                        inner
                            .map(as_statement)
                            .chain(stmts[i + 1..].iter().cloned())
                            .collect()
                    };
                    return self.lower_seq(&seq);
                }
                Stmt::Expr(Expr::Match(m), _) if may_exit(&Expr::Match(m.clone())) => {
                    return self.lower_match_with(m, &stmts[i + 1..]);
                }
                Stmt::Expr(Expr::Return(r), _) => return self.lower_exit_return(r),
                Stmt::Expr(Expr::Break(b), _) => return self.lower_break(b),
                Stmt::Expr(Expr::Continue(c), _) => return self.lower_continue(c),
                Stmt::Local(l)
                    if l.init
                        .as_ref()
                        .is_some_and(|i| i.diverge.is_none() && may_exit(&i.expr)) =>
                {
                    return self.lower_let_absorbing(l, &stmts[i + 1..]);
                }
                Stmt::Expr(e, None) if last => return self.in_expression(|cx| cx.lower_expr(e)),
                Stmt::Expr(Expr::MethodCall(m), Some(_)) => {
                    self.in_expression(|cx| cx.lower_method_call_stmt(m))?;
                }
                Stmt::Expr(e @ (Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_)), _) => {
                    self.lower_expr(e)?;
                }
                Stmt::Expr(e, _) => {
                    self.in_expression(|cx| cx.lower_expr(e))?;
                }
                _ => self.in_expression(|cx| cx.lower_stmt(stmt))?,
            }
        }
        Ok(self.unit(proc_macro2::Span::call_site()))
    }

    /// Runs `f` on an expression whose value the statements after it use: an early exit
    /// inside it would skip them without their being absorbed, so it is refused there.
    pub(crate) fn in_expression<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> syn::Result<T>,
    ) -> syn::Result<T> {
        let saved = std::mem::replace(&mut self.exit_ok, false);
        let out = f(self);
        self.exit_ok = saved;
        out
    }

    fn exit_in_expression(&self, node: &impl quote::ToTokens) -> syn::Result<()> {
        if self.exit_ok {
            Ok(())
        } else {
            Err(syn::Error::new_spanned(node, "`return`, `break` or `continue` inside an expression is not supported in a #[differentiable] body; use it as a statement (`if c { return x; }`, `match n { 0 => return x, _ => {} }`)"))
        }
    }

    /// `let p = <if/match/block that may exit>; rest`: the binding and the rest are lowered
    /// at the end of each branch that falls through.
    fn lower_let_absorbing(&mut self, l: &syn::Local, rest: &[Stmt]) -> syn::Result<Value> {
        let init = &l.init.as_ref().expect("checked").expr;
        let bind = |e: Expr| -> Stmt {
            let mut l2 = l.clone();
            if let Some(i) = &mut l2.init {
                *i.expr = e;
            }
            Stmt::Local(l2)
        };
        match &**init {
            Expr::If(e) if super::expr::desugar_if_let(e).is_none() => {
                let then_seq: Vec<Stmt> = std::iter::once(bind(Expr::Block(syn::ExprBlock {
                    attrs: vec![],
                    label: None,
                    block: e.then_branch.clone(),
                })))
                .chain(rest.iter().cloned())
                .collect();
                let els: Expr = match &e.else_branch {
                    Some((_, x)) => (**x).clone(),
                    None => syn::parse_quote!(()),
                };
                let else_seq: Vec<Stmt> = std::iter::once(bind(els))
                    .chain(rest.iter().cloned())
                    .collect();
                self.lower_if_with(
                    e,
                    |cx| cx.lower_seq(&then_seq),
                    |cx| cx.lower_seq(&else_seq),
                )
            }
            Expr::Match(m) => self.lower_match_binding(m, Some(l), rest),
            Expr::Block(b) if b.label.is_none() => {
                // `let p = { s..; tail };` is `s..; let p = tail;`.
                let mut seq: Vec<Stmt> = b.block.stmts.clone();
                let tail = match seq.pop() {
                    Some(Stmt::Expr(e, None)) => e,
                    Some(other) => {
                        seq.push(other);
                        syn::parse_quote!(())
                    }
                    None => syn::parse_quote!(()),
                };
                seq.push(bind(tail));
                seq.extend(rest.iter().cloned());
                self.lower_seq(&seq)
            }
            // `let p = return x;` (an arm or branch that exits): the exit itself.
            Expr::Return(r) => self.lower_exit_return(r),
            Expr::Break(b) => self.lower_break(b),
            Expr::Continue(c) => self.lower_continue(c),
            _ => {
                // The exit is deeper in an expression: refused.
                self.in_expression(|cx| cx.lower_stmt(&Stmt::Local(l.clone())))?;
                self.lower_seq(rest)
            }
        }
    }

    fn lower_exit_return(&mut self, r: &syn::ExprReturn) -> syn::Result<Value> {
        self.exit_in_expression(r)?;
        if !self.loops.is_empty() {
            return Err(syn::Error::new_spanned(r, "`return` inside a loop is not supported yet; `break` out of the loop and return after it"));
        }
        let v = match &r.expr {
            Some(e) => self.lower_expr(e)?,
            None => self.unit(r.span()),
        };
        self.diverged = true;
        Ok(v)
    }

    pub(crate) fn lower_break(&mut self, b: &syn::ExprBreak) -> syn::Result<Value> {
        self.exit_in_expression(b)?;
        if b.label.is_some() || b.expr.is_some() {
            return Err(syn::Error::new_spanned(b, "`break` with a label or a value is not supported yet; assign the value to a `let mut` declared before the loop and use a plain `break`"));
        }
        if self.loops.is_empty() {
            return Err(syn::Error::new_spanned(b, "`break` outside of a loop"));
        }
        let t = self.emit(Inst::Const(quote::quote!(true)), b.span(), None);
        if let Some(l) = self.loops.last_mut() {
            l.has_break = true;
        }
        self.assign(STOP, t);
        self.diverged = true;
        Ok(self.unit(b.span()))
    }

    pub(crate) fn lower_continue(&mut self, c: &syn::ExprContinue) -> syn::Result<Value> {
        self.exit_in_expression(c)?;
        if c.label.is_some() {
            return Err(syn::Error::new_spanned(
                c,
                "`continue` with a label is not supported yet",
            ));
        }
        if self.loops.is_empty() {
            return Err(syn::Error::new_spanned(c, "`continue` outside of a loop"));
        }
        self.diverged = true;
        Ok(self.unit(c.span()))
    }

    /// `if c { A } else { B }; rest`: lowered as `if c { A; rest } else { B; rest }`.
    fn lower_if_absorbing(&mut self, e: &syn::ExprIf, rest: &[Stmt]) -> syn::Result<Value> {
        let then_seq: Vec<Stmt> = e.then_branch.stmts.iter().chain(rest).cloned().collect();
        let else_seq: Vec<Stmt> = match &e.else_branch {
            None => rest.to_vec(),
            Some((_, els)) => match &**els {
                Expr::Block(b) => b.block.stmts.iter().chain(rest).cloned().collect(),
                other => std::iter::once(Stmt::Expr(other.clone(), None))
                    .chain(rest.iter().cloned())
                    .collect(),
            },
        };
        let else_seq = fix_else_if(else_seq, rest.len());
        self.lower_if_with(
            e,
            |cx| cx.lower_seq(&then_seq),
            |cx| cx.lower_seq(&else_seq),
        )
    }
}

/// In `[else_if_expr] ++ rest`, the `else if` must be a statement when `rest` follows.
fn fix_else_if(mut seq: Vec<Stmt>, rest_len: usize) -> Vec<Stmt> {
    if rest_len > 0 && seq.len() == rest_len + 1 {
        if let Stmt::Expr(e @ Expr::If(_), None) = &seq[0] {
            seq[0] = Stmt::Expr(e.clone(), Some(Default::default()));
        }
    }
    seq
}

/// A block's tail expression, moved before more statements, becomes a statement.
fn as_statement(s: Stmt) -> Stmt {
    match s {
        Stmt::Expr(e, None) => Stmt::Expr(e, Some(Default::default())),
        other => other,
    }
}
