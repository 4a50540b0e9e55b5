//! Exits the lowering does not take directly, rewritten before lowering into the ones it
//! does (plain `break` and `continue` of the innermost loop, `return` outside loops):
//!
//! - `return e` inside a loop, `break 'outer` and `continue 'outer` from an inner loop:
//!   the exit sets a flag (`__diff_exit`, and `__diff_ret = e` for a return) and breaks
//!   the innermost loop; after each loop that such an exit leaves, a dispatch on the flag
//!   continues the exit one level out (`break`), or ends it there (`break`/`continue` of
//!   the target loop, `return __diff_ret` at the top);
//! - `break v` (also `break 'l v`): the value is assigned to a variable declared before
//!   the loop, which stands for the loop's value after it (`let r = loop { .. }`,
//!   `x = loop { .. }`, or a loop as a block's tail);
//! - a labelled block `'a: { .. }` is the loop `'a: loop { ..; break 'a tail }`;
//! - `let y: T;` assigned later is `let mut y: T = Default::default();` (every read
//!   follows an assignment, which rustc checks on the original function).
//!
//! Code without these constructs is returned unchanged.
use proc_macro2::Span;
use quote::format_ident;
use syn::{parse_quote, Expr, Stmt};

/// The flag naming the pending exit.
const EXIT: &str = "__diff_exit";
/// The value of a pending `return`.
const RET: &str = "__diff_ret";
/// The pending exit that is a `return`.
const RETURN: u32 = 1;

/// Removes the placeholders of `let y;` ([`Rewriter`]) that nothing reads: every read
/// follows an assignment, so the placeholder is read only where it flows into a join
/// or a loop. Without a type written (`let y;`), a placeholder no statement reads would
/// be a `Default::default()` whose type nothing infers.
pub(crate) fn drop_unread_placeholders(func: &mut crate::ir::Function) {
    use crate::ir::{segment_names, Callee, Inst};
    func.drop_unread(|s| match &s.inst {
        Inst::Call(Callee::Path(p), args) => {
            let names = segment_names(&p.path);
            args.is_empty() && names.ends_with(&["Default".to_string(), "default".to_string()])
        }
        _ => false,
    });
}

/// Rewrites a body's exits; `None` when there is nothing to rewrite. `output`: the
/// function's result type, which a pending `return`'s value takes.
pub(crate) fn rewrite(body: &syn::Block, output: Option<&syn::Type>) -> Option<syn::Block> {
    if !needs_rewrite(body) {
        return None;
    }
    let mut r = Rewriter::default();
    let mut stmts = r.stmts(body.stmts.clone(), &mut Vec::new());
    let mut prelude: Vec<Stmt> = Vec::new();
    if r.flag {
        let exit = ident(EXIT);
        prelude.push(parse_quote!(let mut #exit: u32 = 0;));
    }
    if r.ret {
        let ret = ident(RET);
        // (Typed: `return None;` alone does not say which `Option`.)
        let named = output.filter(|t| !crate::parse::types::mentions(&quote::quote!(#t), "impl"));
        prelude.push(match named {
            Some(t) => parse_quote!(let mut #ret = <#t as ::core::default::Default>::default();),
            None => parse_quote!(let mut #ret = ::core::default::Default::default();),
        });
    }
    prelude.append(&mut stmts);
    Some(syn::Block {
        brace_token: body.brace_token,
        stmts: prelude,
    })
}

fn ident(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::call_site())
}

/// Whether the body holds anything this module rewrites.
fn needs_rewrite(body: &syn::Block) -> bool {
    struct Finder {
        depth: usize,
        found: bool,
    }
    impl<'a> syn::visit::Visit<'a> for Finder {
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
        fn visit_local(&mut self, l: &'a syn::Local) {
            self.found |= l.init.is_none();
            syn::visit::visit_local(self, l);
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::ForLoop(syn::ExprForLoop { label: Some(_), .. })
                | Expr::While(syn::ExprWhile { label: Some(_), .. })
                | Expr::Loop(syn::ExprLoop { label: Some(_), .. })
                | Expr::Block(syn::ExprBlock { label: Some(_), .. }) => self.found = true,
                Expr::Break(b) if b.label.is_some() || b.expr.is_some() => self.found = true,
                Expr::Continue(c) if c.label.is_some() => self.found = true,
                Expr::Return(_) if self.depth > 0 => self.found = true,
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                    self.depth += 1;
                    syn::visit::visit_expr(self, e);
                    self.depth -= 1;
                    return;
                }
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut f = Finder {
        depth: 0,
        found: false,
    };
    syn::visit::Visit::visit_block(&mut f, body);
    f.found
}

/// A loop enclosing the code being rewritten.
struct Loop {
    id: u32,
    label: Option<String>,
    /// A labelled block made a loop: unlabelled `continue` passes it by.
    block: bool,
    /// The variable holding the loop's value, for `break v`.
    value: Option<syn::Ident>,
    /// Exits from inside it that target it or a level outside it, by flag value.
    escapes: Vec<u32>,
}

impl Loop {
    fn break_code(&self) -> u32 {
        2 + 2 * self.id
    }
    fn continue_code(&self) -> u32 {
        3 + 2 * self.id
    }
}

#[derive(Default)]
struct Rewriter {
    next_id: u32,
    /// Whether `__diff_exit` is used.
    flag: bool,
    /// Whether `__diff_ret` is used.
    ret: bool,
}

impl Rewriter {
    fn stmts(&mut self, stmts: Vec<Stmt>, stack: &mut Vec<Loop>) -> Vec<Stmt> {
        let n = stmts.len();
        let mut out = Vec::with_capacity(n);
        for (k, stmt) in stmts.into_iter().enumerate() {
            let tail = k + 1 == n;
            match stmt {
                Stmt::Local(mut l) => {
                    if l.init.is_none() {
                        // `let y: T;`: a mutable variable with a placeholder value (of
                        // type `T`, named, as the placeholder may never be read).
                        let pat = mutable(l.pat.clone());
                        let init: Expr = match &l.pat {
                            syn::Pat::Type(t) => {
                                let ty = &t.ty;
                                parse_quote!(<#ty as ::core::default::Default>::default())
                            }
                            _ => parse_quote!(::core::default::Default::default()),
                        };
                        out.push(parse_quote!(let #pat = #init;));
                        continue;
                    }
                    let init = l.init.as_mut().expect("checked above");
                    if init.diverge.is_none() {
                        if let Some((before, value)) = self.valued(&init.expr, stack) {
                            out.extend(before);
                            *init.expr = value;
                            out.push(Stmt::Local(l));
                            continue;
                        }
                    }
                    let dispatch = self.expr(&mut init.expr, stack);
                    if let Some((_, els)) = &mut init.diverge {
                        self.expr(els, stack);
                    }
                    out.push(Stmt::Local(l));
                    out.extend(dispatch);
                }
                Stmt::Expr(Expr::Assign(mut a), semi) => {
                    if let Some((before, value)) = self.valued(&a.right, stack) {
                        out.extend(before);
                        *a.right = value;
                        out.push(Stmt::Expr(Expr::Assign(a), semi));
                        continue;
                    }
                    self.expr(&mut a.right, stack);
                    out.push(Stmt::Expr(Expr::Assign(a), semi));
                }
                Stmt::Expr(e, None) if tail && valued_loop(&e) => {
                    let (before, value) = self.valued(&e, stack).expect("a valued loop");
                    out.extend(before);
                    out.push(Stmt::Expr(value, None));
                }
                Stmt::Expr(mut e, semi) => {
                    // A `loop` left only by exits this module rewrites (`return`): after
                    // its dispatch nothing is reached, as the loop's type `!` says.
                    let never =
                        matches!(&e, Expr::Loop(l) if super::diverge::never_breaks(&l.body));
                    let dispatch = self.expr(&mut e, stack);
                    let semi = match (&dispatch, semi) {
                        (Some(_), None) if !tail => Some(Default::default()),
                        (_, s) => s,
                    };
                    let unreachable = (tail && never && dispatch.is_some() && semi.is_none())
                        .then(|| Stmt::Expr(parse_quote!(::core::unreachable!()), None));
                    out.push(Stmt::Expr(e, semi));
                    out.extend(dispatch);
                    out.extend(unreachable);
                }
                Stmt::Macro(m) => out.push(Stmt::Macro(m)),
                Stmt::Item(i) => out.push(Stmt::Item(i)),
            }
        }
        out
    }

    /// A loop (or labelled block) whose value is used: the statements declaring its
    /// value variable and running it, and the expression standing for its value.
    fn valued(&mut self, e: &Expr, stack: &mut Vec<Loop>) -> Option<(Vec<Stmt>, Expr)> {
        if !valued_loop(e) {
            return None;
        }
        let mut e = as_loop(e);
        let value = format_ident!("__diff_loop_value{}", self.next_id);
        let dispatch = self.looped(&mut e, Some(value.clone()), stack);
        let mut before: Vec<Stmt> = vec![
            parse_quote!(let mut #value = ::core::default::Default::default();),
            Stmt::Expr(e, Some(Default::default())),
        ];
        before.extend(dispatch);
        Some((before, parse_quote!(#value)))
    }

    /// Rewrites the exits in `e`; when `e` is a loop some exit leaves, the dispatch that
    /// follows it.
    fn expr(&mut self, e: &mut Expr, stack: &mut Vec<Loop>) -> Option<Stmt> {
        match e {
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => self.looped(e, None, stack),
            Expr::Block(b) if b.label.is_some() => {
                *e = as_loop(e);
                self.looped(e, None, stack)
            }
            Expr::Return(r) if !stack.is_empty() => {
                let value = r
                    .expr
                    .take()
                    .map(|v| *v)
                    .unwrap_or_else(|| parse_quote!(()));
                let mut value = value;
                self.expr(&mut value, stack);
                let ret = ident(RET);
                self.ret = true;
                *e = self.leave(RETURN, vec![parse_quote!(#ret = #value;)], stack);
                None
            }
            Expr::Break(b) => {
                let t = target(stack, b.label.as_ref())?;
                let mut assign = Vec::new();
                if let Some(v) = &mut b.expr {
                    let Some(var) = stack[t].value.clone() else {
                        // The loop's value is used where it cannot be hoisted (deep in
                        // an expression): left for the lowering to refuse.
                        return None;
                    };
                    self.expr(v, stack);
                    assign.push(parse_quote!(#var = #v;));
                    b.expr = None;
                }
                b.label = None;
                if t + 1 == stack.len() && assign.is_empty() {
                    return None;
                }
                let code = stack[t].break_code();
                *e = if t + 1 == stack.len() {
                    parse_quote!({ #(#assign)* break })
                } else {
                    self.leave(code, assign, stack)
                };
                None
            }
            Expr::Continue(c) => {
                let t = target(stack, c.label.as_ref())?;
                c.label = None;
                if t + 1 == stack.len() {
                    return None;
                }
                let code = stack[t].continue_code();
                *e = self.leave(code, Vec::new(), stack);
                None
            }
            Expr::Closure(_) => None,
            _ => {
                // Statements nested in the expression (blocks, branches, arms).
                struct Inner<'r, 's> {
                    r: &'r mut Rewriter,
                    stack: &'s mut Vec<Loop>,
                }
                impl syn::visit_mut::VisitMut for Inner<'_, '_> {
                    fn visit_block_mut(&mut self, b: &mut syn::Block) {
                        let stmts = std::mem::take(&mut b.stmts);
                        b.stmts = self.r.stmts(stmts, self.stack);
                    }
                    fn visit_expr_mut(&mut self, e: &mut Expr) {
                        if let Some(d) = self.r.expr(e, self.stack) {
                            // A loop in an expression: its dispatch after it.
                            let inner = e.clone();
                            *e = parse_quote!({ #inner; #d });
                        }
                    }
                    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
                }
                let mut inner = Inner { r: self, stack };
                syn::visit_mut::visit_expr_mut(&mut inner, e);
                None
            }
        }
    }

    /// Leaves the innermost loop for an exit that ends further out: the statements
    /// `pre`, the flag, and `break`.
    fn leave(&mut self, code: u32, pre: Vec<Stmt>, stack: &mut [Loop]) -> Expr {
        self.flag = true;
        let exit = ident(EXIT);
        if let Some(inner) = stack.last_mut() {
            inner.escapes.push(code);
        }
        parse_quote!({ #(#pre)* #exit = #code; break })
    }

    /// Rewrites a loop expression (label stripped, body rewritten with it on the stack);
    /// returns the dispatch that must follow it, if some exit leaves it.
    fn looped(
        &mut self,
        e: &mut Expr,
        value: Option<syn::Ident>,
        stack: &mut Vec<Loop>,
    ) -> Option<Stmt> {
        let id = self.next_id;
        self.next_id += 1;
        let (label, body, block) = match e {
            Expr::ForLoop(f) => (f.label.take(), &mut f.body, false),
            Expr::While(w) => (w.label.take(), &mut w.body, false),
            Expr::Loop(l) => (
                l.label.take(),
                &mut l.body,
                l.attrs.iter().any(|a| a.path().is_ident("__diff_block")),
            ),
            _ => return None,
        };
        stack.push(Loop {
            id,
            label: label.map(|l| l.name.ident.to_string()),
            block,
            value,
            escapes: Vec::new(),
        });
        let stmts = std::mem::take(&mut body.stmts);
        body.stmts = self.stmts(stmts, stack);
        if let Expr::Loop(l) = e {
            l.attrs.retain(|a| !a.path().is_ident("__diff_block"));
        }
        let done = stack.pop().expect("pushed above");
        let escapes: Vec<u32> = {
            let mut v = done.escapes.clone();
            v.sort_unstable();
            v.dedup();
            v
        };
        if escapes.is_empty() {
            return None;
        }
        Some(self.dispatch(&done, &escapes, stack))
    }

    /// After a loop some exit leaves: `if __diff_exit == code { .. }` for each.
    fn dispatch(&mut self, done: &Loop, escapes: &[u32], stack: &mut [Loop]) -> Stmt {
        let exit = ident(EXIT);
        let mut arms: Vec<(u32, Expr)> = Vec::new();
        for &code in escapes {
            let action: Expr = if code == done.break_code() {
                // The loop was the target of a `break`: the exit ends here.
                parse_quote!({ #exit = 0; })
            } else if code == RETURN && stack.is_empty() {
                let ret = ident(RET);
                parse_quote!({ return #ret; })
            } else if stack.last().is_some_and(|l| code == l.continue_code()) {
                parse_quote!({ #exit = 0; continue; })
            } else if stack.last().is_some_and(|l| code == l.break_code()) {
                parse_quote!({ #exit = 0; break; })
            } else {
                // Further out: leave the enclosing loop too.
                if let Some(l) = stack.last_mut() {
                    l.escapes.push(code);
                }
                parse_quote!({
                    break;
                })
            };
            arms.push((code, action));
        }
        let mut chain: Option<Expr> = None;
        for (code, action) in arms.into_iter().rev() {
            chain = Some(match chain {
                None => parse_quote!(if #exit == #code #action),
                Some(rest) => parse_quote!(if #exit == #code #action else #rest),
            });
        }
        Stmt::Expr(chain.expect("an escape"), None)
    }
}

/// Which loop of `stack` an exit with `label` targets: the labelled one, or the innermost
/// real loop.
fn target(stack: &[Loop], label: Option<&syn::Lifetime>) -> Option<usize> {
    match label {
        Some(l) => {
            let name = l.ident.to_string();
            stack
                .iter()
                .rposition(|x| x.label.as_deref() == Some(&name))
        }
        // An unlabelled exit targets the innermost loop, never a labelled block.
        None => stack.iter().rposition(|x| !x.block),
    }
}

/// Whether `e` is a loop broken with a value, or a labelled block (whose value is used).
fn valued_loop(e: &Expr) -> bool {
    match e {
        Expr::Block(b) => b.label.is_some(),
        Expr::Loop(l) => {
            let label = l.label.as_ref().map(|l| l.name.ident.to_string());
            breaks_with_value(&l.body, label.as_deref(), 0)
        }
        Expr::Paren(p) => valued_loop(&p.expr),
        _ => false,
    }
}

/// Whether a `break` with a value targets the loop whose body is `b` (`depth` loops
/// deeper than it, for unlabelled ones).
fn breaks_with_value(b: &syn::Block, label: Option<&str>, depth: usize) -> bool {
    struct V<'l> {
        label: Option<&'l str>,
        depth: usize,
        found: bool,
    }
    impl<'a> syn::visit::Visit<'a> for V<'_> {
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Break(b) if b.expr.is_some() => {
                    let ours = match &b.label {
                        Some(l) => self.label == Some(l.ident.to_string().as_str()),
                        None => self.depth == 0,
                    };
                    self.found |= ours;
                }
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                    self.depth += 1;
                    syn::visit::visit_expr(self, e);
                    self.depth -= 1;
                    return;
                }
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut v = V {
        label,
        depth,
        found: false,
    };
    syn::visit::Visit::visit_block(&mut v, b);
    v.found
}

/// A labelled block `'a: { s..; tail }` as `'a: loop { s..; break 'a tail; }`, marked so
/// that `continue` passes it by; a loop as it is.
fn as_loop(e: &Expr) -> Expr {
    match e {
        Expr::Block(b) if b.label.is_some() => {
            let label = b.label.clone();
            let lt = label.as_ref().map(|l| l.name.clone());
            let mut stmts = b.block.stmts.clone();
            // (A block without a tail, a statement, is left by a `break` without a value,
            // as its own `break 'a;` are.)
            let tail: Option<Expr> = match stmts.pop() {
                Some(Stmt::Expr(t, None)) => Some(t),
                Some(other) => {
                    stmts.push(other);
                    None
                }
                None => None,
            };
            parse_quote!(#[__diff_block] #label loop { #(#stmts)* break #lt #tail; })
        }
        Expr::Paren(p) => as_loop(&p.expr),
        other => other.clone(),
    }
}

/// `pat` bound mutably (`y` as `mut y`, `y: T` as `mut y: T`).
fn mutable(pat: syn::Pat) -> syn::Pat {
    match pat {
        syn::Pat::Ident(mut p) => {
            p.mutability = Some(Default::default());
            syn::Pat::Ident(p)
        }
        syn::Pat::Type(mut t) => {
            *t.pat = mutable(*t.pat);
            syn::Pat::Type(t)
        }
        other => other,
    }
}
