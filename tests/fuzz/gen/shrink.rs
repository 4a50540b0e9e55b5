//! Shrinking a failing program by hand-free steps: statements are numbered in pre-order
//! over the whole program (methods, then functions in order), and a list of numbers is
//! dropped (`DIFF_FUZZ_DROP`), unwrapped (`DIFF_FUZZ_UNWRAP`: an `if`, `match`, block or
//! loop replaced by the statements of its first body) or simplified (`DIFF_FUZZ_SIMPLIFY`:
//! the value a `let` or an assignment stores replaced by one read). `shrink.sh` searches
//! for the smallest lists that keep the program failing.

use super::ast::*;

/// What to do with the statements of some numbers, and which helpers to leave out
/// (`S` for the struct and its methods).
pub struct Edit<'a> {
    pub drop: &'a [usize],
    pub unwrap: &'a [usize],
    pub simplify: &'a [usize],
    pub drop_fns: &'a [String],
}

/// The number of statements of a program (the range of the numbers).
pub fn count(p: &Program) -> usize {
    let mut n = 0;
    let mut p = p.clone();
    let none = Edit {
        drop: &[],
        unwrap: &[],
        simplify: &[],
        drop_fns: &[],
    };
    for f in p.methods.iter_mut().chain(p.fns.iter_mut()) {
        edit_body(&mut f.body, &none, &mut n);
    }
    n
}

/// The numbers of the statements that can be unwrapped (`if`, `match`, loops, blocks) and
/// of those that can be simplified (`let` of an `f64`, assignments).
pub fn kinds(p: &Program) -> (Vec<usize>, Vec<usize>) {
    fn walk(body: &[Stmt], n: &mut usize, compound: &mut Vec<usize>, simple: &mut Vec<usize>) {
        for s in body {
            let id = *n;
            *n += 1;
            match s {
                Stmt::Let {
                    init: Init::F(_), ..
                }
                | Stmt::Assign { .. } => simple.push(id),
                Stmt::If { arms, els } => {
                    compound.push(id);
                    for (_, b) in arms {
                        walk(b, n, compound, simple);
                    }
                    if let Some(b) = els {
                        walk(b, n, compound, simple);
                    }
                }
                Stmt::Match { arms, .. } => {
                    compound.push(id);
                    for (_, b) in arms {
                        walk(b, n, compound, simple);
                    }
                }
                Stmt::For { body: b, .. }
                | Stmt::While { body: b, .. }
                | Stmt::Loop { body: b, .. }
                | Stmt::Block(b) => {
                    compound.push(id);
                    walk(b, n, compound, simple);
                }
                Stmt::LetLoop { body: b, .. } => walk(b, n, compound, simple),
                _ => {}
            }
        }
    }
    let (mut n, mut compound, mut simple) = (0, Vec::new(), Vec::new());
    for f in p.methods.iter().chain(p.fns.iter()) {
        walk(&f.body, &mut n, &mut compound, &mut simple);
    }
    (compound, simple)
}

pub fn apply(p: &mut Program, edit: &Edit) {
    let mut n = 0;
    for f in p.methods.iter_mut().chain(p.fns.iter_mut()) {
        edit_body(&mut f.body, edit, &mut n);
    }
    if edit.drop_fns.iter().any(|f| f == "S") {
        p.has_struct = false;
        p.methods.clear();
    }
    p.fns
        .retain(|f| f.name == "f" || !edit.drop_fns.contains(&f.name));
    // The result of `f` sums its top-level locals: keep the terms still declared.
    let f = p.fns.last_mut().expect("f");
    let mut declared: Vec<String> = f.params.iter().map(|q| q.name.clone()).collect();
    for s in &f.body {
        match s {
            Stmt::Let { name, .. } | Stmt::LetLoop { name, .. } => declared.push(name.clone()),
            Stmt::LetPat { names, .. } => declared.extend(names.iter().cloned()),
            _ => {}
        }
    }
    if let Some(tail) = f.tail.take() {
        let mut terms = Vec::new();
        split_sum(tail, BinOp::Add, &mut terms);
        let kept: Vec<(BinOp, Expr)> = terms
            .into_iter()
            .filter(|(_, t)| reads_only(t, &declared))
            .collect();
        let mut it = kept.into_iter();
        let mut acc = it.next().map(|t| t.1).unwrap_or(Expr::Lit(0.0));
        for (op, t) in it {
            acc = Expr::Bin(op, Box::new(acc), Box::new(t));
        }
        f.tail = Some(acc);
    }
}

/// The terms of `a + b - c`, each with the operator before it.
fn split_sum(e: Expr, op: BinOp, out: &mut Vec<(BinOp, Expr)>) {
    match e {
        Expr::Bin(o @ (BinOp::Add | BinOp::Sub), a, b) => {
            split_sum(*a, op, out);
            out.push((o, *b));
        }
        e => out.push((op, e)),
    }
}

/// Whether `e` (a term of `f`'s result: a read, maybe times a literal) reads only `names`.
fn reads_only(e: &Expr, names: &[String]) -> bool {
    match e {
        Expr::Place(p) => names.iter().any(|n| n == p.root()),
        Expr::Bin(_, a, b) => reads_only(a, names) && reads_only(b, names),
        Expr::Lit(_) => true,
        _ => true,
    }
}

fn first_body(s: Stmt) -> Vec<Stmt> {
    match s {
        Stmt::If { arms, .. } => arms.into_iter().next().map(|a| a.1).unwrap_or_default(),
        Stmt::Match { arms, .. } => arms.into_iter().next().map(|a| a.1).unwrap_or_default(),
        Stmt::For { body, .. }
        | Stmt::While { body, .. }
        | Stmt::Loop { body, .. }
        | Stmt::Block(body) => body,
        s => vec![s],
    }
}

/// The first read in `e` (or `e` itself if it reads nothing).
fn simplest(e: &Expr) -> Expr {
    fn first(e: &Expr) -> Option<Expr> {
        match e {
            Expr::Place(_) | Expr::IntAsF(_) => Some(e.clone()),
            Expr::Neg(a) | Expr::Math(_, a) => first(a),
            Expr::Bin(_, a, b) => first(a).or_else(|| first(b)),
            Expr::Call(_, args) => args.iter().find_map(|a| match a {
                Arg::Val(e) => first(e),
                Arg::Mut(_) | Arg::V(_) => None,
            }),
            _ => None,
        }
    }
    first(e).unwrap_or_else(|| e.clone())
}

/// Counter increments and the `if k > K { break; }` of a `loop` are kept: without them
/// the loop would not end.
fn keep(s: &Stmt) -> bool {
    match s {
        Stmt::Incr(_) => true,
        Stmt::If { arms, els: None } => {
            arms.len() == 1
                && matches!(arms[0].0, Cond::I(IExpr::Var(_), CmpOp::Gt, _))
                && matches!(
                    arms[0].1.as_slice(),
                    [Stmt::Break(None) | Stmt::BreakValue(_)]
                )
        }
        _ => false,
    }
}

fn edit_body(body: &mut Vec<Stmt>, edit: &Edit, n: &mut usize) {
    let old = std::mem::take(body);
    for mut s in old {
        let id = *n;
        *n += 1;
        match &mut s {
            Stmt::If { arms, els } => {
                for (_, b) in arms.iter_mut() {
                    edit_body(b, edit, n);
                }
                if let Some(b) = els {
                    edit_body(b, edit, n);
                }
            }
            Stmt::Match { arms, .. } => {
                for (_, b) in arms.iter_mut() {
                    edit_body(b, edit, n);
                }
            }
            Stmt::For { body: b, .. }
            | Stmt::While { body: b, .. }
            | Stmt::Loop { body: b, .. }
            | Stmt::LetLoop { body: b, .. }
            | Stmt::Block(b) => edit_body(b, edit, n),
            _ => {}
        }
        if keep(&s) {
            body.push(s);
            continue;
        }
        if edit.drop.contains(&id) {
            continue;
        }
        if edit.simplify.contains(&id) {
            match &mut s {
                Stmt::Let {
                    init: Init::F(e), ..
                }
                | Stmt::Assign { rhs: e, .. } => *e = simplest(e),
                _ => {}
            }
        }
        if edit.unwrap.contains(&id) {
            body.extend(first_body(s));
        } else {
            body.push(s);
        }
    }
}
