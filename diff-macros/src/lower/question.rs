//! The `?` operator on an `Option` (`let a = safe_log(x)?;` in a function returning
//! `Option`), rewritten before lowering into the `match` it stands for: `match e {
//! Some(v) => v, None => return None }`, whose payload the lowering differentiates
//! through as any `Option`'s (`matching.rs`) and whose `return` it takes as any early
//! exit. A `?` inside a statement (`let b = *v.get(1)?;`, `Some(a? * b?)`) is first
//! taken out into a `let` of its own before the statement, when nothing the statement
//! evaluates before it can have an effect (a call): the lowering takes an early exit as
//! a statement. A closure's `?` is its own and stays. (A function returning `Result` is
//! not differentiable: its `?` is not reached.)
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

/// The body with each `?` outside closures rewritten; `None` when it has none, or the
/// function (its result type `output`) does not return an `Option`.
pub(crate) fn rewrite(body: &syn::Block, output: Option<&syn::Type>) -> Option<syn::Block> {
    if output.is_none_or(|t| crate::parse::types::type_argument(t, "Option").is_none()) {
        return None;
    }
    let mut found = Finder(false);
    syn::visit::Visit::visit_block(&mut found, body);
    if !found.0 {
        return None;
    }
    let mut body = body.clone();
    Rewriter { taken: 0 }.visit_block_mut(&mut body);
    Some(body)
}

/// Whether a `?` is outside closures.
struct Finder(bool);

impl<'ast> syn::visit::Visit<'ast> for Finder {
    fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
        self.0 = true;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

struct Rewriter {
    /// How many `?` were taken out into `let`s.
    taken: usize,
}

/// `match (e) { Some(v) => v, None => return None }` at the span of the `?`; `None`
/// where it does not parse (the `?` then stays, and the lowering says it is not
/// supported).
fn unwrapped(t: &syn::ExprTry) -> Option<Expr> {
    let (inner, span) = (&t.expr, t.span());
    let some = syn::Ident::new("__diff_some", span);
    syn::parse2(quote_spanned! {span=>
        match (#inner) {
            Some(#some) => #some,
            None => return None,
        }
    })
    .ok()
}

impl Rewriter {
    /// Takes the `?`s of `e` evaluated before anything with an effect out into `lets`,
    /// in the order they run; `clean` says whether nothing before has an effect.
    fn take_out(&mut self, e: &mut Expr, lets: &mut Vec<Stmt>, clean: &mut bool) {
        match e {
            Expr::Try(t) => {
                // What the operand evaluates is taken out with it, in its order.
                let before = *clean;
                self.take_out(&mut t.expr, lets, clean);
                if !before {
                    return;
                }
                *clean = true;
                let Some(m) = unwrapped(t) else {
                    *clean = false;
                    return;
                };
                let name = syn::Ident::new(&format!("__diff_try_{}", self.taken), t.span());
                self.taken += 1;
                lets.push(syn::parse_quote!(let #name = #m;));
                *e = syn::parse_quote!(#name);
            }
            Expr::Binary(b) => {
                self.take_out(&mut b.left, lets, clean);
                // The right of `&&` and `||` may not run.
                if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) {
                    *clean = false;
                    return;
                }
                self.take_out(&mut b.right, lets, clean);
            }
            Expr::Unary(u) => self.take_out(&mut u.expr, lets, clean),
            Expr::Paren(p) => self.take_out(&mut p.expr, lets, clean),
            Expr::Group(g) => self.take_out(&mut g.expr, lets, clean),
            Expr::Reference(r) => self.take_out(&mut r.expr, lets, clean),
            Expr::Cast(c) => self.take_out(&mut c.expr, lets, clean),
            Expr::Field(f) => self.take_out(&mut f.base, lets, clean),
            Expr::Index(i) => {
                self.take_out(&mut i.expr, lets, clean);
                self.take_out(&mut i.index, lets, clean);
            }
            Expr::Tuple(t) => t
                .elems
                .iter_mut()
                .for_each(|e| self.take_out(e, lets, clean)),
            Expr::Array(a) => a
                .elems
                .iter_mut()
                .for_each(|e| self.take_out(e, lets, clean)),
            Expr::Call(c) => {
                self.take_out(&mut c.func, lets, clean);
                c.args
                    .iter_mut()
                    .for_each(|e| self.take_out(e, lets, clean));
                *clean = false;
            }
            Expr::MethodCall(m) => {
                self.take_out(&mut m.receiver, lets, clean);
                m.args
                    .iter_mut()
                    .for_each(|e| self.take_out(e, lets, clean));
                *clean = false;
            }
            Expr::Lit(_) | Expr::Path(_) => {}
            // Anything else (a block, a branch, a loop, a macro) is not looked into.
            _ => *clean = false,
        }
    }
}

impl VisitMut for Rewriter {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(b.stmts.len());
        for mut stmt in std::mem::take(&mut b.stmts) {
            let mut lets = Vec::new();
            let top = match &mut stmt {
                Stmt::Local(l) => l.init.as_mut().map(|i| &mut *i.expr),
                Stmt::Expr(e, _) => Some(e),
                _ => None,
            };
            if let Some(top) = top {
                // A `?` that is the whole statement or initializer is taken there.
                if !matches!(top, Expr::Try(_)) {
                    self.take_out(top, &mut lets, &mut true);
                }
            }
            for mut l in lets {
                self.visit_stmt_mut(&mut l);
                stmts.push(l);
            }
            self.visit_stmt_mut(&mut stmt);
            stmts.push(stmt);
        }
        b.stmts = stmts;
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) => return,
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
        if let Expr::Try(t) = e {
            if let Some(m) = unwrapped(t) {
                *e = m;
            }
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
