//! Statement sequences with early exits: `return`, `break` and `continue`.
//!
//! An `if` statement that may exit early absorbs the statements after it: they are
//! lowered at the end of each branch that falls through, so every path through the
//! regions is straight and the exits need no jumps (continuation absorption). A `break`
//! sets the loop's stop flag, which the loop body yields; `continue` ends the body's
//! region where it stands.
use super::Lowerer;
use crate::ir::{Inst, Opaque, Value};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Stmt};

/// The name of the synthetic variable holding a loop body's stop flag.
pub(crate) const STOP: &str = "__diff_stop";

/// The name of the synthetic variable carrying a spliced block's value out of its scope.
const BLOCK_VALUE: &str = "__diff_block_value";

/// A marker statement: the end of the scope of a block whose statements were spliced
/// into a sequence (so that the block's exits absorb what follows it). The block's own
/// variables end there; `BLOCK_VALUE` moves to the enclosing scope.
fn end_of_block() -> Stmt {
    Stmt::Item(syn::Item::Verbatim(quote::quote!(__diff_end_of_block)))
}

fn is_end_of_block(s: &Stmt) -> bool {
    matches!(s, Stmt::Item(syn::Item::Verbatim(t)) if t.to_string() == "__diff_end_of_block")
}

/// A block's statements spliced before `rest`: the block's statements, the end of its
/// scope (which the caller has pushed), then `rest`. With `binder`, the block's tail
/// value is bound to the `let`'s pattern after the scope ends.
pub(crate) fn spliced(
    mut block: Vec<Stmt>,
    binder: Option<&syn::Local>,
    rest: &[Stmt],
) -> Vec<Stmt> {
    let value: Option<syn::Ident> =
        binder.map(|_| syn::Ident::new(BLOCK_VALUE, proc_macro2::Span::call_site()));
    if let Some(name) = &value {
        let tail = match block.pop() {
            Some(Stmt::Expr(e, None)) => e,
            Some(other) => {
                block.push(other);
                syn::parse_quote!(())
            }
            None => syn::parse_quote!(()),
        };
        block.push(syn::parse_quote!(let #name = #tail;));
    } else if !rest.iter().all(is_end_of_block) {
        // (Before the ends of enclosing blocks only, the tail stays their value.)
        block = block.into_iter().map(as_statement).collect();
    }
    block.push(end_of_block());
    if let (Some(l), Some(name)) = (binder, &value) {
        let mut l = l.clone();
        if let Some(init) = &mut l.init {
            *init.expr = syn::parse_quote!(#name);
        }
        block.push(Stmt::Local(l));
    }
    block.extend(rest.iter().cloned());
    block
}

/// `let PAT = e else { exit };` as `let (a, b) = match e { PAT => (a, b), _ => { exit }
/// };` (one name without the tuple), the names `PAT` binds keeping their `mut`; `None`
/// for a pattern binding by `ref`.
fn let_else(l: &syn::Local) -> Option<syn::Local> {
    let init = l.init.as_ref()?;
    let (_, exit) = init.diverge.as_ref()?;
    let names = super::matching::binding_patterns(&l.pat);
    if names.iter().any(|p| p.by_ref.is_some()) {
        return None;
    }
    let (pat, e) = (&l.pat, &init.expr);
    let idents: Vec<&syn::Ident> = names.iter().map(|p| &p.ident).collect();
    let bound: Vec<proc_macro2::TokenStream> = names
        .iter()
        .map(|p| {
            let (m, id) = (&p.mutability, &p.ident);
            quote::quote!(#m #id)
        })
        .collect();
    let plain = match idents.as_slice() {
        [one] => {
            let b = &bound[0];
            quote::quote_spanned! {l.span()=> let #b = match #e { #pat => #one, _ => #exit }; }
        }
        _ => quote::quote_spanned! {l.span()=>
            let (#(#bound,)*) = match #e { #pat => (#(#idents,)*), _ => #exit };
        },
    };
    match syn::parse2::<Stmt>(plain) {
        Ok(Stmt::Local(l)) => Some(l),
        _ => None,
    }
}

/// Whether `e` contains a `return`, or a `break`/`continue` of the enclosing loop.
pub(crate) fn may_exit(e: &Expr) -> bool {
    let mut f = Finder {
        found: false,
        loop_depth: 0,
        only_breaks: false,
    };
    f.visit_expr(e);
    f.found
}

/// Whether the body of a `loop` never leaves it by a `break` (its only ways out are
/// `return` and panics): the loop's value, of type `!`, is never read.
pub(crate) fn never_breaks(body: &syn::Block) -> bool {
    let mut f = Finder {
        found: false,
        loop_depth: 0,
        only_breaks: true,
    };
    f.visit_block(body);
    !f.found
}

/// Searches for exits out of the code it visits, not counting those of nested loops
/// and closures. A labelled `break` counts wherever it is.
struct Finder {
    found: bool,
    loop_depth: usize,
    /// Count `break` alone (not `return` and `continue`).
    only_breaks: bool,
}

impl<'a> Visit<'a> for Finder {
    fn visit_expr_return(&mut self, _: &'a syn::ExprReturn) {
        self.found |= !self.only_breaks;
    }
    fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
        if self.loop_depth == 0 || (self.only_breaks && b.label.is_some()) {
            self.found = true;
        }
    }
    fn visit_expr_continue(&mut self, _: &'a syn::ExprContinue) {
        if self.loop_depth == 0 {
            self.found |= !self.only_breaks;
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

impl Lowerer {
    /// Lowers a sequence of statements; the last one, without `;`, is its value.
    pub(crate) fn lower_seq(&mut self, stmts: &[Stmt]) -> syn::Result<Value> {
        for (i, stmt) in stmts.iter().enumerate() {
            if self.diverged {
                break;
            }
            if is_end_of_block(stmt) {
                let value = self.lookup(BLOCK_VALUE);
                self.pop_scope();
                if let Some(v) = value {
                    self.bind(BLOCK_VALUE.to_string(), v);
                }
                continue;
            }
            // Ends of spliced blocks after a tail expression leave it the sequence's value.
            let last = stmts[i + 1..].iter().all(is_end_of_block);
            match stmt {
                Stmt::Expr(Expr::If(e), _)
                    if may_exit(&Expr::If(e.clone()))
                        && super::expr::desugar_if_let(e).is_none() =>
                {
                    return self.lower_if_absorbing(e, &stmts[i + 1..]);
                }
                // `if let p = e { ..exits.. } rest`: the `match` it stands for.
                Stmt::Expr(Expr::If(e), _) if may_exit(&Expr::If(e.clone())) => {
                    let Some(Expr::Match(m)) = super::expr::desugar_if_let(e) else {
                        unreachable!("an `if` that is not an `if let` is taken above")
                    };
                    return self.lower_match_with(&m, &stmts[i + 1..]);
                }
                Stmt::Expr(Expr::Block(b), _)
                    if b.label.is_none() && may_exit(&Expr::Block(b.clone())) =>
                {
                    // `{ ..exits.. } rest`: the block's statements in their scope, then
                    // the rest.
                    let seq = spliced(b.block.stmts.clone(), None, &stmts[i + 1..]);
                    return self.in_block_scope(|cx| cx.lower_seq(&seq));
                }
                Stmt::Expr(Expr::Match(m), _) if may_exit(&Expr::Match(m.clone())) => {
                    return self.lower_match_with(m, &stmts[i + 1..]);
                }
                Stmt::Local(l) if l.init.as_ref().is_some_and(|i| i.diverge.is_some()) => {
                    if let Some(plain) = let_else(l) {
                        let mut seq = vec![Stmt::Local(plain)];
                        seq.extend(stmts[i + 1..].iter().cloned());
                        return self.lower_seq(&seq);
                    }
                    let r = self.lower_stmt(stmt);
                    self.recover(stmt, r);
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
                // `place = match .. { .. => return x, .. };` (or `+=`): the value first, as
                // Rust evaluates it, then the assignment: `let v = ..; place = v;`, the
                // `let` absorbing what follows.
                Stmt::Expr(e @ (Expr::Assign(_) | Expr::Binary(_)), Some(semi))
                    if assigned_value(e).is_some_and(may_exit) =>
                {
                    let value = syn::Ident::new(ASSIGNED, proc_macro2::Span::mixed_site());
                    let (right, assignment) = match e {
                        Expr::Assign(a) => {
                            let mut a = a.clone();
                            let right = std::mem::replace(&mut *a.right, syn::parse_quote!(#value));
                            (right, Expr::Assign(a))
                        }
                        Expr::Binary(b) => {
                            let mut b = b.clone();
                            let right = std::mem::replace(&mut *b.right, syn::parse_quote!(#value));
                            (right, Expr::Binary(b))
                        }
                        _ => unreachable!("matched above"),
                    };
                    let mut seq: Vec<Stmt> = vec![
                        syn::parse_quote!(let #value = #right;),
                        Stmt::Expr(assignment, Some(*semi)),
                    ];
                    seq.extend(stmts[i + 1..].iter().cloned());
                    return self.lower_seq(&seq);
                }
                Stmt::Expr(e, None) if last => return self.in_expression(|cx| cx.lower_expr(e)),
                Stmt::Expr(Expr::MethodCall(m), Some(_)) => {
                    let r = self.in_expression(|cx| cx.lower_method_call_stmt(m));
                    self.recover(stmt, r);
                }
                Stmt::Expr(e @ (Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_)), _) => {
                    let r = self.lower_expr(e).map(|_| ());
                    self.recover(stmt, r);
                }
                Stmt::Expr(e, _) => {
                    let r = self.in_expression(|cx| cx.lower_expr(e)).map(|_| ());
                    self.recover(stmt, r);
                }
                _ => {
                    let r = self.in_expression(|cx| cx.lower_stmt(stmt));
                    self.recover(stmt, r);
                }
            }
        }
        Ok(self.unit(proc_macro2::Span::call_site()))
    }

    /// Records a statement's error, so that lowering goes on with the next statement and
    /// every error of the body is reported. The names a failed `let` would bind get a
    /// value with no derivative, so their uses do not fail again.
    fn recover<T>(&mut self, stmt: &Stmt, r: syn::Result<T>) {
        let Err(e) = r else { return };
        self.errors.push(e);
        if let Stmt::Local(l) = stmt {
            for name in super::matching::bindings(&l.pat) {
                let placeholder = Inst::Opaque(Opaque {
                    tokens: quote::quote!(::core::unreachable!()),
                    uses: Vec::new(),
                    what: "statement refused above".to_string(),
                    macro_name: None,
                    inactive: true,
                    discrete: false,
                });
                let v = self.emit(placeholder, name.span(), Some(name.to_string()));
                self.bind(name.to_string(), v);
            }
        }
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
            Err(syn::Error::new_spanned(node, "`return`, `break`, `continue` or `?` inside an expression is not supported in a #[differentiable] body; use it as a statement (`if c { return x; }`, `match n { 0 => return x, _ => {} }`, `let v = g(y)?;`)"))
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
                // `let p = { s..; tail }; rest` is `s..; let p = tail; rest`, with `s..`
                // in the block's scope.
                let seq = spliced(b.block.stmts.clone(), Some(l), rest);
                self.in_block_scope(|cx| cx.lower_seq(&seq))
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

    /// `if c { A } else { B }; rest`: lowered as `if c { A; rest } else { B; rest }`,
    /// `A` and `B` each in its own scope.
    fn lower_if_absorbing(&mut self, e: &syn::ExprIf, rest: &[Stmt]) -> syn::Result<Value> {
        let then_seq = spliced(e.then_branch.stmts.clone(), None, rest);
        let else_stmts: Vec<Stmt> = match &e.else_branch {
            None => Vec::new(),
            Some((_, els)) => match &**els {
                Expr::Block(b) => b.block.stmts.clone(),
                other => vec![Stmt::Expr(other.clone(), None)],
            },
        };
        let else_seq = spliced(else_stmts, None, rest);
        self.lower_if_with(
            e,
            |cx| cx.in_block_scope(|cx| cx.lower_seq(&then_seq)),
            |cx| cx.in_block_scope(|cx| cx.lower_seq(&else_seq)),
        )
    }

    /// Runs `f` in a new scope, which a spliced sequence ends with its end-of-block
    /// marker (or which ends here, when the marker was absorbed into branches).
    pub(crate) fn in_block_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let depth = self.env.depth();
        self.push_scope();
        let out = f(self);
        self.truncate_scopes(depth);
        out
    }
}

/// The name of the synthetic variable holding an assigned value that may exit early.
const ASSIGNED: &str = "__diff_assigned";

/// The value an assignment (`place = v`) or compound assignment (`place += v`) assigns.
fn assigned_value(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Assign(a) => Some(&a.right),
        Expr::Binary(b) if super::expr::is_compound_assignment(&b.op) => Some(&b.right),
        _ => None,
    }
}

/// A block's tail expression, moved before more statements, becomes a statement.
fn as_statement(s: Stmt) -> Stmt {
    match s {
        Stmt::Expr(e, None) => Stmt::Expr(e, Some(Default::default())),
        other => other,
    }
}
