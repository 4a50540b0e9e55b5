//! `return` in a closure's body, rewritten as the closure's value.
//!
//! A closure given to an iterator adaptor returns early as a function does:
//! `.map(|&x| { if x < 0.0 { return 0.0; } x * x })`. The lowering reads a closure's body
//! as an expression, in which an early exit cannot be absorbed (`lower/diverge.rs`), so
//! before the body is read, the statements after an `if` or `match` that returns are
//! moved into its branches that fall through, and `return v` becomes the branch's value:
//! `if x < 0.0 { 0.0 } else { x * x }`. The same value on every path, computed by the
//! same operations, so the derivative is the closure's.
//!
//! Only what is sure to mean the same is rewritten: returns in the statements of the body
//! and of the `if`/`match` branches it reaches. A `return` in a loop, in a condition or
//! an operand, or one whose branch binds a name the moved statements use (they would
//! see the branch's binding instead of the outer one), leaves the closure as written, and
//! the lowering says what it cannot read.
use quote::ToTokens;
use syn::{Expr, Stmt};

/// Rewrites the returns of closure `c` (see the module docs), when it has any and they
/// can all be rewritten.
pub fn structure(c: &mut syn::ExprClosure) {
    if !returns_in_expr(&c.body) {
        return;
    }
    let stmts = match &*c.body {
        Expr::Block(b) if b.label.is_none() => b.block.stmts.clone(),
        other => vec![Stmt::Expr(other.clone(), None)],
    };
    if let Some(body) = without_returns(&stmts) {
        *c.body = body;
    }
}

/// The value of the statements `stmts` as an expression with no `return` (a `return v`
/// gives `v`), or `None` if a return cannot be moved out.
fn without_returns(stmts: &[Stmt]) -> Option<Expr> {
    let i = stmts.iter().position(returns_in_stmt)?;
    let (head, rest) = (&stmts[..i], &stmts[i + 1..]);
    let Stmt::Expr(e, _) = &stmts[i] else {
        return None;
    };
    let tail = match e {
        Expr::Return(r) => match &r.expr {
            Some(v) if !returns_in_expr(v) => (**v).clone(),
            Some(_) => return None,
            None => syn::parse_quote!(()),
        },
        Expr::If(x) if x.attrs.is_empty() => {
            if returns_in_expr(&x.cond) {
                return None;
            }
            let then = branch(&x.then_branch.stmts, rest)?;
            let otherwise = match &x.else_branch {
                None => branch(&[], rest)?,
                Some((_, e)) => match &**e {
                    Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                        branch(&b.block.stmts, rest)?
                    }
                    Expr::If(_) => branch(&[Stmt::Expr((**e).clone(), None)], rest)?,
                    _ => return None,
                },
            };
            let cond = &x.cond;
            syn::parse_quote!(if #cond #then else #otherwise)
        }
        Expr::Match(m) if m.attrs.is_empty() => {
            if returns_in_expr(&m.expr) {
                return None;
            }
            let mut arms = Vec::new();
            for arm in &m.arms {
                if arm.guard.as_ref().is_some_and(|(_, g)| returns_in_expr(g)) {
                    return None;
                }
                // The arm's pattern binds names the moved statements must not see.
                if !rest.is_empty() && mentions_any(rest, &pattern_names(&arm.pat)) {
                    return None;
                }
                let stmts = match &*arm.body {
                    Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                        b.block.stmts.clone()
                    }
                    other => vec![Stmt::Expr(other.clone(), None)],
                };
                let body = branch(&stmts, rest)?;
                let mut arm = arm.clone();
                *arm.body = Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: body,
                });
                arm.comma = Some(Default::default());
                arms.push(arm);
            }
            let scrutinee = &m.expr;
            syn::parse_quote!(match #scrutinee { #(#arms)* })
        }
        _ => return None,
    };
    let mut out = head.to_vec();
    out.push(Stmt::Expr(tail, None));
    Some(block_expr(out))
}

/// A branch's statements followed by the statements after its `if` or `match`, as a
/// block with no `return`; `None` if the branch binds a name those statements use.
fn branch(stmts: &[Stmt], rest: &[Stmt]) -> Option<syn::Block> {
    let bound: Vec<String> = stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Local(l) => Some(pattern_names(&l.pat)),
            _ => None,
        })
        .flatten()
        .collect();
    let mut all = stmts.to_vec();
    // The branch's value, when it falls through, is `()`: a statement before `rest`.
    if let Some(Stmt::Expr(e, semi @ None)) = all.last_mut() {
        if !rest.is_empty() && !matches!(e, Expr::Return(_)) {
            *semi = Some(Default::default());
        }
    }
    let falls_through = !all
        .iter()
        .any(|s| matches!(s, Stmt::Expr(Expr::Return(_), _)));
    if falls_through && !rest.is_empty() && mentions_any(rest, &bound) {
        return None;
    }
    all.extend(rest.iter().cloned());
    let value = if all.iter().any(returns_in_stmt) {
        without_returns(&all)?
    } else {
        block_expr(all)
    };
    Some(match value {
        Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block,
        other => syn::parse_quote!({ #other }),
    })
}

fn block_expr(stmts: Vec<Stmt>) -> Expr {
    Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: syn::Block {
            brace_token: Default::default(),
            stmts,
        },
    })
}

/// The names a pattern binds.
fn pattern_names(p: &syn::Pat) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'a> syn::visit::Visit<'a> for Names {
        fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
            self.0.push(i.ident.to_string());
            syn::visit::visit_pat_ident(self, i);
        }
    }
    let mut n = Names(Vec::new());
    syn::visit::Visit::visit_pat(&mut n, p);
    n.0
}

/// Whether the statements mention any of `names` (as any identifier).
fn mentions_any(stmts: &[Stmt], names: &[String]) -> bool {
    if names.is_empty() {
        return false;
    }
    fn walk(tokens: proc_macro2::TokenStream, names: &[String]) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => names.contains(&i.to_string()),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), names),
            _ => false,
        })
    }
    stmts.iter().any(|s| walk(s.to_token_stream(), names))
}

/// Whether a `return` of the closure is in the statement (not in a closure or `async`
/// block inside it, whose returns are theirs).
fn returns_in_stmt(s: &Stmt) -> bool {
    let mut r = Returns(false);
    syn::visit::Visit::visit_stmt(&mut r, s);
    r.0
}

fn returns_in_expr(e: &Expr) -> bool {
    let mut r = Returns(false);
    syn::visit::Visit::visit_expr(&mut r, e);
    r.0
}

struct Returns(bool);

impl<'a> syn::visit::Visit<'a> for Returns {
    fn visit_expr_return(&mut self, _: &'a syn::ExprReturn) {
        self.0 = true;
    }
    fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::structure;
    use quote::ToTokens;

    fn rewritten(src: &str) -> String {
        let mut c: syn::ExprClosure = syn::parse_str(src).expect("a closure");
        structure(&mut c);
        c.body.to_token_stream().to_string()
    }

    #[test]
    fn a_return_in_an_if_becomes_its_value() {
        assert_eq!(
            rewritten("|&x| { if x < 0.0 { return 0.0; } x * x }"),
            "{ if x < 0.0 { 0.0 } else { x * x } }"
        );
        assert_eq!(
            rewritten("|x| { let y = x + 1.0; if y > 2.0 { return y; } else if y < 0.0 { return -y; } let z = y * y; z }"),
            "{ let y = x + 1.0 ; if y > 2.0 { y } else { if y < 0.0 { - y } else { let z = y * y ; z } } }"
        );
        assert_eq!(
            rewritten("|x: f64| { match x as i32 { 0 => return 1.0, n => { if n > 2 { return x; } } } x }"),
            "{ match x as i32 { 0 => { 1.0 } , n => { if n > 2 { x } else { x } } , } }"
        );
    }

    #[test]
    fn what_cannot_be_moved_is_left_as_written() {
        // In a loop.
        let src = "|x| { for i in 0..3 { if x > i as f64 { return x; } } 0.0 }";
        assert_eq!(
            rewritten(src),
            syn::parse_str::<syn::ExprClosure>(src)
                .unwrap()
                .body
                .to_token_stream()
                .to_string()
        );
        // A binding of the branch that the statements after it would see.
        let src =
            "|x| { let t = 1.0; if x > 0.0 { let t = 2.0; g(t); } else { return 0.0; } t * x }";
        assert!(rewritten(src).contains("return"));
        // A nested closure's return is its own.
        let src = "|x| { let f = |y: f64| { return y; }; f(x) }";
        assert!(rewritten(src).contains("return"));
    }
}
