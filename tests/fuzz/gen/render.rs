//! Rendering a program as Rust source: over `f64` with `#[differentiable]` (what a user
//! writes), and over the oracle's dual numbers `D` (plain Rust: every float literal is
//! `D::c(..)`, comparisons compare values), then the `check` function comparing them.

use super::ast::*;
use std::fmt::Write;

/// Operator precedence of rendered expressions, to parenthesize exactly where needed (the
/// tree is kept as generated: floating point is not associative).
const P_BLOCK: u8 = 0;
const P_ADD: u8 = 1;
const P_MUL: u8 = 2;
const P_UNARY: u8 = 3;
const P_POSTFIX: u8 = 4;
const P_ATOM: u8 = 5;

struct R {
    dual: bool,
    /// `Vec<f64>` for the `[f64; 3]` state.
    vecs: bool,
    /// Rendering a condition, where a struct literal needs parentheses.
    in_cond: std::cell::Cell<bool>,
}

fn fld(f: Fld) -> &'static str {
    match f {
        Fld::T0 => "0",
        Fld::T1 => "1",
        Fld::A => "a",
        Fld::B => "b",
        Fld::X => "x",
        Fld::Y => "y",
    }
}

fn cmp(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "<",
        CmpOp::Gt => ">",
        CmpOp::Le => "<=",
        CmpOp::Ge => ">=",
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
    }
}

fn binop(op: BinOp) -> (&'static str, u8) {
    match op {
        BinOp::Add => ("+", P_ADD),
        BinOp::Sub => ("-", P_ADD),
        BinOp::Mul => ("*", P_MUL),
        BinOp::Div => ("/", P_MUL),
    }
}

fn iexpr_p(e: &IExpr) -> (String, u8) {
    match e {
        IExpr::Var(n) => (n.clone(), P_ATOM),
        IExpr::Lit(k) => (k.to_string(), P_ATOM),
        IExpr::Add(a, k) => (format!("{} + {k}", iexpr_min(a, P_ADD)), P_ADD),
        IExpr::Sub(a, k) => (format!("{} - {k}", iexpr_min(a, P_ADD)), P_ADD),
        IExpr::Mod(a, k) => (format!("{} % {k}", iexpr_min(a, P_MUL)), P_MUL),
    }
}

fn iexpr_min(e: &IExpr, min: u8) -> String {
    let (s, p) = iexpr_p(e);
    if p >= min {
        s
    } else {
        format!("({s})")
    }
}

fn iexpr(e: &IExpr) -> String {
    iexpr_p(e).0
}

fn range(r: &Range) -> String {
    match r {
        Range::Excl(a, b) => format!("{}..{}", iexpr(a), iexpr(b)),
        Range::Incl(a, b) => format!("{a}..={b}"),
        Range::Rev(a, b) => format!("({}..{}).rev()", iexpr(a), iexpr(b)),
        Range::StepBy(a, b, k) => format!("({}..{}).step_by({k})", iexpr(a), iexpr(b)),
        Range::Items(items) => items.clone(),
    }
}

fn label_prefix(l: &Option<String>) -> String {
    l.as_ref().map(|l| format!("{l}: ")).unwrap_or_default()
}

fn has_effects(e: &Expr) -> bool {
    matches!(e, Expr::Block(..))
}

fn vop(op: VOp) -> (&'static str, u8) {
    match op {
        VOp::Add => ("+", P_ADD),
        VOp::Sub => ("-", P_ADD),
        VOp::Mul => ("*", P_MUL),
    }
}

impl R {
    fn new(dual: bool, vecs: bool) -> R {
        R {
            dual,
            vecs,
            in_cond: std::cell::Cell::new(false),
        }
    }

    /// `f` run as rendering a condition (`if c`, `while c`).
    fn cond_context<T>(&self, f: impl FnOnce() -> T) -> T {
        let was = self.in_cond.replace(true);
        let out = f();
        self.in_cond.set(was);
        out
    }

    fn float(&self) -> &'static str {
        if self.dual {
            "D"
        } else {
            "f64"
        }
    }

    fn ty(&self, t: Ty) -> String {
        let f = self.float();
        match t {
            Ty::F => f.to_string(),
            Ty::T2 => format!("({f}, {f})"),
            Ty::A3 if self.vecs => format!("Vec<{f}>"),
            Ty::A3 => format!("[{f}; 3]"),
            Ty::S => "S".to_string(),
            Ty::V => "V".to_string(),
            Ty::I => "usize".to_string(),
            Ty::RefF => format!("&mut {f}"),
            Ty::Chunk => format!("&mut [{f}]"),
            Ty::SelfMut | Ty::SelfRef => "Self".to_string(),
        }
    }

    fn lit(&self, v: f64) -> (String, u8) {
        if self.dual {
            (format!("D::c({v:?})"), P_POSTFIX)
        } else if v < 0.0 {
            (format!("{v:?}"), P_UNARY)
        } else {
            (format!("{v:?}"), P_ATOM)
        }
    }

    fn place(&self, p: &Place) -> (String, u8) {
        match p {
            Place::Var(n) => (n.clone(), P_ATOM),
            Place::Field(n, f) => (format!("{n}.{}", fld(*f)), P_POSTFIX),
            Place::Elem(n, i) => (format!("{n}[{}]", iexpr(i)), P_POSTFIX),
            Place::Deref(n) => (format!("*{n}"), P_UNARY),
            Place::SelfField(f) => (format!("self.{}", fld(*f)), P_POSTFIX),
        }
    }

    fn place_str(&self, p: &Place) -> String {
        self.place(p).0
    }

    fn min(&self, e: &Expr, min: u8) -> String {
        let (s, p) = self.expr_p(e);
        if p >= min {
            s
        } else {
            format!("({s})")
        }
    }

    fn expr(&self, e: &Expr) -> String {
        self.expr_p(e).0
    }

    fn arg(&self, a: &Arg) -> String {
        match a {
            Arg::Val(e) => self.expr(e),
            Arg::Mut(p) => format!("&mut {}", self.place_str(p)),
            Arg::V(v) => self.vexpr_p(v).0,
        }
    }

    fn vmin(&self, e: &VExpr, min: u8) -> String {
        let (s, p) = self.vexpr_p(e);
        if p >= min {
            s
        } else {
            format!("({s})")
        }
    }

    fn vexpr_p(&self, e: &VExpr) -> (String, u8) {
        match e {
            VExpr::Var(n) => (n.clone(), P_ATOM),
            VExpr::Lit(a, b) => {
                let s = format!("V {{ x: {}, y: {} }}", self.expr(a), self.expr(b));
                if self.in_cond.get() {
                    (format!("({s})"), P_ATOM)
                } else {
                    (s, P_ATOM)
                }
            }
            VExpr::New(a, b) => (
                format!("V::new({}, {})", self.expr(a), self.expr(b)),
                P_POSTFIX,
            ),
            VExpr::Make(a, b) => (
                format!("vmake({}, {})", self.expr(a), self.expr(b)),
                P_POSTFIX,
            ),
            VExpr::Bin(op, a, b) => {
                let (o, p) = vop(*op);
                (
                    format!("{} {o} {}", self.vmin(a, p), self.vmin(b, p + 1)),
                    p,
                )
            }
            VExpr::Scale(a, k) => (
                format!("{} * {}", self.vmin(a, P_MUL), self.min(k, P_MUL + 1)),
                P_MUL,
            ),
            VExpr::ScaleLeft(k, a) => (
                format!("{} * {}", self.min(k, P_MUL), self.vmin(a, P_MUL + 1)),
                P_MUL,
            ),
            VExpr::Div(a, k) => (
                format!("{} / {}", self.vmin(a, P_MUL), self.min(k, P_MUL + 1)),
                P_MUL,
            ),
            VExpr::Neg(a) => (format!("-{}", self.vmin(a, P_UNARY)), P_UNARY),
            VExpr::Squashed(a) => (format!("{}.squashed()", self.vmin(a, P_POSTFIX)), P_POSTFIX),
            VExpr::If(c, a, b) => {
                // The arms are blocks: a struct literal is allowed there again.
                let was = self.in_cond.replace(false);
                let s = format!(
                    "if {} {{ {} }} else {{ {} }}",
                    self.cond(c),
                    self.vexpr_p(a).0,
                    self.vexpr_p(b).0
                );
                self.in_cond.set(was);
                (s, P_BLOCK)
            }
        }
    }

    fn args(&self, args: &[Arg]) -> String {
        args.iter()
            .map(|a| self.arg(a))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn exprs(&self, args: &[Expr]) -> String {
        args.iter()
            .map(|a| self.expr(a))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn expr_p(&self, e: &Expr) -> (String, u8) {
        match e {
            Expr::Lit(v) => self.lit(*v),
            Expr::Place(p) => self.place(p),
            Expr::IntAsF(i) => {
                let i = iexpr_min(i, P_ATOM);
                if self.dual {
                    (format!("D::c({i} as f64)"), P_POSTFIX)
                } else {
                    (format!("({i} as f64)"), P_ATOM)
                }
            }
            Expr::Neg(a) => (format!("-{}", self.min(a, P_UNARY)), P_UNARY),
            Expr::Bin(op, a, b) => {
                let (o, p) = binop(*op);
                (format!("{} {o} {}", self.min(a, p), self.min(b, p + 1)), p)
            }
            Expr::Math(m, a) => {
                let recv = self.min(a, P_POSTFIX);
                let call = match m {
                    Math::Sin => "sin()",
                    Math::Cos => "cos()",
                    Math::Tanh => "tanh()",
                    Math::Exp => "exp()",
                    Math::Sqrt => "sqrt()",
                    Math::Powi2 => "powi(2)",
                };
                (format!("{recv}.{call}"), P_POSTFIX)
            }
            Expr::Call(name, args) => (format!("{name}({})", self.args(args)), P_POSTFIX),
            Expr::MethodCall {
                recv,
                method,
                args,
                ufcs,
            } => {
                let s = if *ufcs {
                    let mut all = vec![format!("&{recv}")];
                    all.extend(args.iter().map(|a| self.expr(a)));
                    format!("S::{method}({})", all.join(", "))
                } else {
                    format!("{recv}.{method}({})", self.exprs(args))
                };
                (s, P_POSTFIX)
            }
            Expr::Block(stmts, tail) => (self.inline_block(stmts, tail), P_BLOCK),
            Expr::If(arms, els, ev) => {
                let mut s = String::new();
                for (i, (c, body, v)) in arms.iter().enumerate() {
                    if i > 0 {
                        s.push_str(" else ");
                    }
                    let _ = write!(s, "if {} {}", self.cond(c), self.inline_block(body, v));
                }
                let _ = write!(s, " else {}", self.inline_block(els, ev));
                (s, P_BLOCK)
            }
            Expr::Match(scrut, arms) => {
                let arms: Vec<String> = arms
                    .iter()
                    .map(|(k, v)| {
                        let pat = k.map(|k| k.to_string()).unwrap_or_else(|| "_".into());
                        format!("{pat} => {},", self.expr(v))
                    })
                    .collect();
                (
                    format!("match {} {{ {} }}", iexpr(scrut), arms.join(" ")),
                    P_BLOCK,
                )
            }
            Expr::Return(v) => (format!("return {}", self.expr(v)), P_BLOCK),
            Expr::VField(v, f) => (
                format!("{}.{}", self.vmin(v, P_POSTFIX), fld(*f)),
                P_POSTFIX,
            ),
            Expr::Dot(a, b) => (
                format!("{}.dot({})", self.vmin(a, P_POSTFIX), self.vexpr_p(b).0),
                P_POSTFIX,
            ),
            Expr::Iter(kind, es) => (self.iter_chain(*kind, es), P_BLOCK),
            Expr::Select(kind, es) => {
                let e0 = self.cond_context(|| self.expr(&es[0]));
                let e1c = self.cond_context(|| self.expr(&es[1]));
                let (e1, e2) = (self.expr(&es[1]), self.expr(&es[2]));
                let scalar = if self.dual { "D" } else { "f64" };
                let s = match kind {
                    Select::MaxFold => {
                        let init = if self.dual {
                            "D::c(f64::NEG_INFINITY)"
                        } else {
                            "f64::NEG_INFINITY"
                        };
                        format!("[{e0}, {e1}, {e2}].iter().copied().fold({init}, {scalar}::max)")
                    }
                    Select::MinBy => format!(
                        "*[{e0}, {e1}, {e2}].iter().min_by(|a: &&{scalar}, b: &&{scalar}| a.total_cmp(b)).unwrap()"
                    ),
                    Select::MaxBy => format!(
                        "[{e0}, {e1}, {e2}].iter().copied().max_by({scalar}::total_cmp).unwrap()"
                    ),
                    Select::Option => format!(
                        "match (if {e0} < {e1c} {{ Some({e0}) }} else {{ None }}) {{ Some(opt_w) => opt_w * ({e2}), None => {e1} }}"
                    ),
                };
                (s, P_BLOCK)
            }
        }
    }

    /// `{ let it_a: [f64; 3] = [e0, e1, e2]; <chain> }`; over `D` the same computation,
    /// written with `D`'s operations (`fold` for `sum` and `product`).
    fn iter_chain(&self, kind: IterKind, es: &[Expr]) -> String {
        let was = self.in_cond.replace(false);
        let parts: Vec<String> = es.iter().map(|e| self.expr(e)).collect();
        self.in_cond.set(was);
        let dual = self.dual;
        let scalar = if dual { "D" } else { "f64" };
        // A constant, and a sum and a product of items.
        let c = |v: &str| {
            if dual {
                format!("D::c({v})")
            } else {
                v.to_string()
            }
        };
        let sum = if dual {
            // (From -0.0, as the standard library's `Sum` of floats.)
            ".fold(D::c(-0.0), |it_s, it_t| it_s + it_t)".to_string()
        } else {
            ".sum::<f64>()".to_string()
        };
        let product = if dual {
            ".fold(D::c(1.0), |it_s, it_t| it_s * it_t)".to_string()
        } else {
            ".product::<f64>()".to_string()
        };
        // An item read through a reference (`v`, or `*v` where `D`'s operators take values).
        let r = |v: &str| if dual { format!("*{v}") } else { v.to_string() };
        let chain = match kind {
            IterKind::SumSquares => format!("it_a.iter().map(|v| {} * {}){sum}", r("v"), r("v")),
            IterKind::ZipRev => format!(
                "it_a.iter().zip(it_a.iter().rev()).map(|(p, q)| {} * {}){sum}",
                r("p"),
                r("q")
            ),
            IterKind::Enumerate => format!(
                "it_a.iter().enumerate().map(|(i, v)| {} * {}){sum}",
                if dual { "D::c(i as f64 + 1.0)" } else { "(i as f64 + 1.0)" },
                r("v")
            ),
            IterKind::Fold => format!(
                "it_a.iter().fold({}, |acc, v| acc * {} + {})",
                c("0.0"),
                c("0.5"),
                r("v")
            ),
            IterKind::RevSkipProduct => {
                format!("it_a.iter().rev().skip(1).map(|v| v.sin()){product}")
            }
            IterKind::Filter => format!(
                "it_a.iter().filter(|v| **v > {}).map(|v| {} * {}){sum}",
                c("0.0"),
                r("v"),
                c("2.0")
            ),
            IterKind::Windows => {
                format!("it_a.windows(2).map(|w| w[1] - w[0]).map(|g| g * g){sum}")
            }
            IterKind::Collect => format!(
                "let it_v: Vec<{scalar}> = it_a.iter().map(|v| v.tanh()).collect(); it_v[0] * it_v[2] + it_v[1]"
            ),
            IterKind::Chain => format!(
                "it_a.iter().chain(it_a[1..].iter()).map(|v| {} * {}){sum}",
                r("v"),
                c("0.5")
            ),
            IterKind::Position => format!(
                "it_a.iter().position(|v| *v > {}).map_or({}, |k| it_a[k] * {})",
                c("0.0"),
                c("0.0"),
                c("2.0")
            ),
            IterKind::ArrayMap => format!("it_a.map(|v| v * {})[1]", c("3.0")),
            IterKind::StepByLoop => format!(
                "let mut it_s = {}; for v in it_a.iter().step_by(2) {{ it_s += {} * {}; }} it_s",
                c("0.0"),
                r("v"),
                r("v")
            ),
            IterKind::TakeWhile => format!(
                "it_a.iter().take_while(|v| **v < {}).map(|v| {} * {}){sum}",
                c("1.0"),
                r("v"),
                r("v")
            ),
            IterKind::FilterMap => format!(
                "it_a.iter().filter_map(|v| if *v > {} {{ Some({} * {}) }} else {{ None }}){sum}",
                c("0.0"),
                r("v"),
                c("1.5")
            ),
            IterKind::FilterMapThen => format!(
                "it_a.iter().copied().filter_map(|v| (v < {}).then(|| v.cos())).fold({}, |it_s, it_t| it_s * it_t)",
                c("0.5"),
                c("1.0")
            ),
            IterKind::SkipWhile => format!(
                "it_a.iter().skip_while(|v| **v < {}).map(|v| v.tanh()){sum}",
                c("0.0")
            ),
        };
        format!(
            "{{ let it_a: [{scalar}; 3] = [{}]; {chain} }}",
            parts.join(", ")
        )
    }

    fn inline_block(&self, stmts: &[Stmt], tail: &Expr) -> String {
        let mut lines = Vec::new();
        for s in stmts {
            self.stmt(s, 0, &mut lines);
        }
        let body: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
        if body.is_empty() {
            format!("{{ {} }}", self.expr(tail))
        } else {
            format!("{{ {} {} }}", body.join(" "), self.expr(tail))
        }
    }

    fn cond(&self, c: &Cond) -> String {
        self.cond_context(|| self.cond_inner(c))
    }

    fn cond_inner(&self, c: &Cond) -> String {
        match c {
            Cond::F(a, op, b) => {
                format!("{} {} {}", self.min(a, P_ADD), cmp(*op), self.min(b, P_ADD))
            }
            Cond::I(a, op, b) => format!("{} {} {}", iexpr(a), cmp(*op), iexpr(b)),
            Cond::And(a, b) => format!("{} && {}", self.cond_inner(a), self.cond_inner(b)),
        }
    }

    fn agg(&self, a: &Agg) -> String {
        match a {
            Agg::Tuple(x, y) => format!("({}, {})", self.expr(x), self.expr(y)),
            Agg::Array(xs) if self.vecs => format!("vec![{}]", self.exprs(xs)),
            Agg::Array(xs) => format!("[{}]", self.exprs(xs)),
            Agg::Repeat(c) if self.vecs => format!("vec![{}; 3]", self.lit(*c).0),
            Agg::Repeat(c) => format!("[{}; 3]", self.lit(*c).0),
            Agg::Struct(a, b) => format!("S {{ a: {}, b: {} }}", self.expr(a), self.expr(b)),
            Agg::StructUpdate(f, e, base) => {
                format!("S {{ {}: {}, ..{base} }}", fld(*f), self.expr(e))
            }
            Agg::Copy(n) if self.vecs => format!("{n}.clone()"),
            Agg::Copy(n) => n.clone(),
        }
    }

    fn block(&self, body: &[Stmt], ind: usize, out: &mut Vec<String>) {
        for s in body {
            self.stmt(s, ind + 1, out);
        }
    }

    fn stmt(&self, s: &Stmt, ind: usize, out: &mut Vec<String>) {
        let pad = "    ".repeat(ind);
        let mut line = |t: String| out.push(format!("{pad}{t}"));
        match s {
            Stmt::Let {
                name,
                mutable,
                ty,
                annotate,
                init,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let t = if *annotate {
                    format!(": {}", self.ty(*ty))
                } else {
                    String::new()
                };
                let init = match init {
                    Init::F(e) => self.expr(e),
                    Init::I(i) => iexpr(i),
                    Init::Agg(a) => self.agg(a),
                    Init::V(v) => self.vexpr_p(v).0,
                };
                line(format!("let {m}{name}{t} = {init};"));
            }
            Stmt::LetPat { names, from } if names.len() == 3 && self.vecs => {
                // A `Vec` has no array pattern: the elements one by one.
                let elems: Vec<String> = (0..3).map(|i| format!("{from}[{i}]")).collect();
                line(format!(
                    "let ({}) = ({});",
                    names.join(", "),
                    elems.join(", ")
                ));
            }
            Stmt::LetPat { names, from } => {
                let (o, c) = if names.len() == 2 {
                    ("(", ")")
                } else {
                    ("[", "]")
                };
                line(format!("let {o}{}{c} = {from};", names.join(", ")));
            }
            Stmt::Assign { place, op, rhs } => {
                let p = self.place_str(place);
                match op {
                    None => line(format!("{p} = {};", self.expr(rhs))),
                    Some(op) => {
                        let o = binop(*op).0;
                        let vec_elem = self.vecs && matches!(place, Place::Elem(..));
                        if self.dual && (has_effects(rhs) || vec_elem) {
                            // For `f64`, the right side of `p += rhs` is evaluated first; an
                            // overloaded `+=` would borrow `p` first (for a `Vec` element, the
                            // whole vector).
                            line(format!("{{ let rhs = {}; {p} {o}= rhs; }}", self.expr(rhs)));
                        } else {
                            line(format!("{p} {o}= {};", self.expr(rhs)));
                        }
                    }
                }
            }
            Stmt::AssignAgg { name, rhs } => line(format!("{name} = {};", self.agg(rhs))),
            Stmt::AssignV { name, op } => line(match op {
                VAssign::Set(v) => format!("{name} = {};", self.vexpr_p(v).0),
                VAssign::Add(v) => format!("{name} += {};", self.vexpr_p(v).0),
                VAssign::Sub(v) => format!("{name} -= {};", self.vexpr_p(v).0),
                VAssign::Scale(k) => format!("{name} *= {};", self.expr(k)),
            }),
            Stmt::Incr(k) => line(format!("{k} += 1;")),
            Stmt::SliceOp { view, op } => line(format!("{view}.{op};")),
            Stmt::Call { func, args } => line(format!("{func}({});", self.args(args))),
            Stmt::MutMethod {
                recv,
                method,
                args,
                ufcs,
            } => {
                if *ufcs {
                    let mut all = vec![format!("&mut {recv}")];
                    all.extend(args.iter().map(|a| self.expr(a)));
                    line(format!("S::{method}({});", all.join(", ")));
                } else {
                    line(format!("{recv}.{method}({});", self.exprs(args)));
                }
            }
            Stmt::If { arms, els } => {
                for (i, (c, body)) in arms.iter().enumerate() {
                    let head = if i == 0 { "if" } else { "} else if" };
                    out.push(format!("{pad}{head} {} {{", self.cond(c)));
                    self.block(body, ind, out);
                }
                if let Some(e) = els {
                    out.push(format!("{pad}}} else {{"));
                    self.block(e, ind, out);
                }
                out.push(format!("{pad}}}"));
            }
            Stmt::Match { scrut, arms } => {
                out.push(format!("{pad}match {} {{", iexpr(scrut)));
                for (k, body) in arms {
                    let pat = k.map(|k| k.to_string()).unwrap_or_else(|| "_".into());
                    out.push(format!("{pad}    {pat} => {{"));
                    self.block(body, ind + 1, out);
                    out.push(format!("{pad}    }}"));
                }
                out.push(format!("{pad}}}"));
            }
            Stmt::For {
                var,
                range: r,
                body,
                label,
            } => {
                let v = var.clone().unwrap_or_else(|| "_".into());
                out.push(format!(
                    "{pad}{}for {v} in {} {{",
                    label_prefix(label),
                    range(r)
                ));
                self.block(body, ind, out);
                out.push(format!("{pad}}}"));
            }
            Stmt::While { cond, body, label } => {
                out.push(format!(
                    "{pad}{}while {} {{",
                    label_prefix(label),
                    self.cond(cond)
                ));
                self.block(body, ind, out);
                out.push(format!("{pad}}}"));
            }
            Stmt::Loop { body, label } => {
                out.push(format!("{pad}{}loop {{", label_prefix(label)));
                self.block(body, ind, out);
                out.push(format!("{pad}}}"));
            }
            Stmt::LetLoop { name, body } => {
                out.push(format!("{pad}let {name} = loop {{"));
                self.block(body, ind, out);
                out.push(format!("{pad}}};"));
            }
            Stmt::Block(body) => {
                out.push(format!("{pad}{{"));
                self.block(body, ind, out);
                out.push(format!("{pad}}}"));
            }
            Stmt::Break(l) => match l {
                Some(l) => line(format!("break {l};")),
                None => line("break;".into()),
            },
            Stmt::BreakValue(e) => line(format!("break {};", self.expr(e))),
            Stmt::Continue => line("continue;".into()),
            Stmt::Return(v) => match v {
                Some(e) => line(format!("return {};", self.expr(e))),
                None => line("return;".into()),
            },
        }
    }

    fn func(&self, f: &Func, ind: usize, out: &mut Vec<String>) {
        let pad = "    ".repeat(ind);
        if !self.dual {
            out.push(format!("{pad}#[differentiable]"));
        }
        let mut params = Vec::new();
        match f.recv {
            Recv::None => {}
            Recv::Ref => params.push("&self".to_string()),
            Recv::Mut => params.push("&mut self".to_string()),
        }
        for p in &f.params {
            let m = if p.mutable { "mut " } else { "" };
            let t = match p.ty {
                PTy::F => self.float().to_string(),
                PTy::MutF => format!("&mut {}", self.float()),
                PTy::Usize => "usize".to_string(),
                PTy::V => "V".to_string(),
            };
            params.push(format!("{m}{}: {t}", p.name));
        }
        let vis = if f.name == "f" { "pub " } else { "" };
        let ret = if f.tail.is_some() {
            format!(" -> {}", self.float())
        } else {
            String::new()
        };
        out.push(format!(
            "{pad}{vis}fn {}({}){ret} {{",
            f.name,
            params.join(", ")
        ));
        self.block(&f.body, ind, out);
        if let Some(t) = &f.tail {
            out.push(format!("{pad}    {}", self.expr(t)));
        }
        out.push(format!("{pad}}}"));
    }

    /// The struct `V`, its methods and operators, and `vmake`.
    fn v_items(&self, block_attr: bool, out: &mut Vec<String>) {
        let f = self.float();
        let c = |v: f64| self.lit(v).0;
        let (mark, mark_block) = match (self.dual, block_attr) {
            (true, _) => ("", ""),
            (false, false) => ("#[differentiable] ", ""),
            (false, true) => ("", "#[differentiable]\n"),
        };
        let derive = if self.dual {
            "Clone, Copy, Debug"
        } else {
            "Differentiable, Clone, Copy, Debug"
        };
        let text = format!(
            "use std::ops::{{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign}};

#[derive({derive})]
struct V {{ x: {f}, y: {f} }}

impl V {{
    {m}fn new(x: {f}, y: {f}) -> V {{ V {{ x, y }} }}
    {m}fn dot(self, o: V) -> {f} {{ self.x * o.x + self.y * o.y }}
    {m}fn squashed(self) -> V {{ V {{ x: self.x.tanh(), y: self.y.sin() }} }}
}}

{b}impl Add for V {{ type Output = V; {mo}fn add(self, o: V) -> V {{ V {{ x: self.x + o.x, y: self.y + o.y }} }} }}
{b}impl Sub for V {{ type Output = V; {mo}fn sub(self, o: V) -> V {{ V {{ x: self.x - o.x, y: self.y - o.y }} }} }}
{b}impl Mul for V {{ type Output = V; {mo}fn mul(self, o: V) -> V {{ V {{ x: self.x * o.x, y: self.y * o.y }} }} }}
{b}impl Mul<{f}> for V {{ type Output = V; {mo}fn mul(self, k: {f}) -> V {{ V {{ x: self.x * k, y: self.y * k }} }} }}
{b}impl Mul<V> for {f} {{ type Output = V; {mo}fn mul(self, p: V) -> V {{ p * self }} }}
{b}impl Div<{f}> for V {{ type Output = V; {mo}fn div(self, k: {f}) -> V {{ V {{ x: self.x / k, y: self.y / k }} }} }}
{b}impl Neg for V {{ type Output = V; {mo}fn neg(self) -> V {{ V {{ x: -self.x, y: -self.y }} }} }}
impl AddAssign for V {{ fn add_assign(&mut self, o: V) {{ *self = *self + o; }} }}
impl SubAssign for V {{ fn sub_assign(&mut self, o: V) {{ *self = *self - o; }} }}
impl MulAssign<{f}> for V {{ fn mul_assign(&mut self, k: {f}) {{ *self = *self * k; }} }}

{m}fn vmake(a: {f}, b: {f}) -> V {{ V::new(a * b, a) - V {{ x: {half}, y: b }} }}
",
            m = if self.dual { "" } else { "#[differentiable] " },
            mo = mark,
            b = mark_block,
            half = c(0.5),
        );
        out.extend(text.lines().map(str::to_string));
    }

    /// The program's items.
    fn items(&self, p: &Program) -> Vec<String> {
        let mut out = Vec::new();
        let f = self.float();
        if p.has_v {
            self.v_items(p.v_block_attr, &mut out);
        }
        if p.has_struct {
            if self.dual {
                out.push("#[derive(Clone, Copy, Debug)]".into());
            } else {
                out.push("#[derive(Differentiable, Clone, Copy, Debug)]".into());
            }
            out.push(format!("struct S {{ a: {f}, b: {f} }}"));
            out.push(String::new());
            out.push("impl S {".into());
            for (i, m) in p.methods.iter().enumerate() {
                if i > 0 {
                    out.push(String::new());
                }
                self.func(m, 1, &mut out);
            }
            out.push("}".into());
            out.push(String::new());
        }
        for (i, func) in p.fns.iter().enumerate() {
            if i > 0 {
                out.push(String::new());
            }
            self.func(func, 0, &mut out);
        }
        out
    }
}

/// The program over `f64`, as a user writes it.
pub fn source(p: &Program) -> String {
    let mut s = String::from("use diff::prelude::*;\n\n");
    for l in R::new(false, p.vecs).items(p) {
        s.push_str(&l);
        s.push('\n');
    }
    s
}

fn dual_items(p: &Program) -> String {
    let mut s = String::new();
    for l in R::new(true, p.vecs).items(p) {
        if !l.is_empty() {
            s.push_str("    ");
        }
        s.push_str(&l);
        s.push('\n');
    }
    s
}

/// The `check` function: at each point, the value, `value_with_gradient!` and the
/// forward-mode operators against `f` and the oracle. Points and directions are loops, so
/// each operator is expanded once.
fn check(p: &Program) -> String {
    let f = p.f();
    let k = f.params.iter().filter(|q| q.ty == PTy::F).count();
    let has_n = f.params.iter().any(|q| q.ty == PTy::Usize);
    let xs: Vec<String> = (0..k).map(|i| format!("x{i}")).collect();
    let xs_list = xs.join(", ");
    let tuple = |v: &[String]| {
        if v.len() == 1 {
            v[0].clone()
        } else {
            format!("({})", v.join(", "))
        }
    };
    let mut call_args = xs.clone();
    if has_n {
        call_args.push("n".into());
    }
    let call = call_args.join(", ");
    // `at:` and `of:` of an operator, by path (with `n` in `at:`) or by a closure.
    let operands = |by_path: bool| {
        if by_path {
            format!("at: {}, of: f", tuple(&call_args))
        } else {
            format!("at: {}, of: |{xs_list}| f({call})", tuple(&xs))
        }
    };
    let points: Vec<String> = p
        .points
        .iter()
        .map(|pt| {
            let xs: Vec<String> = pt.xs.iter().map(|x| format!("{x:?}")).collect();
            format!("([{}], {})", xs.join(", "), pt.n)
        })
        .collect();
    let mut s = String::from("pub fn check() -> Result<(), String> {\n");
    let _ = writeln!(
        s,
        "    let points: [([f64; {k}], usize); {}] = [{}];",
        points.len(),
        points.join(", ")
    );
    let _ = writeln!(s, "    for (at, n) in points {{");
    let _ = writeln!(s, "        let [{xs_list}] = at;");
    let _ = writeln!(s, "        let want = f({call});");
    let seeded: Vec<String> = (0..k).map(|i| format!("D::seeded(x{i}, t[{i}])")).collect();
    let mut oracle_args = seeded;
    if has_n {
        oracle_args.push("n".into());
    }
    let _ = writeln!(
        s,
        "        let oracle: Vec<D> = (0..{k}).map(|j| {{ let t = unit::<{k}>(j); dual::f({}) }}).collect();",
        oracle_args.join(", ")
    );
    let _ = writeln!(
        s,
        "        let (rv, rg) = value_with_gradient!({});",
        operands(p.reverse_by_path)
    );
    let rg: Vec<String> = if k == 1 {
        vec!["rg".into()]
    } else {
        (0..k).map(|i| format!("rg.{i}")).collect()
    };
    let _ = writeln!(s, "        let rg = [{}];", rg.join(", "));
    let _ = writeln!(s, "        let mut forward = Vec::new();");
    let _ = writeln!(s, "        for j in 0..{k} {{");
    let _ = writeln!(s, "            let t = unit::<{k}>(j);");
    let _ = writeln!(
        s,
        "            let (v, df) = value_with_differential!({});",
        operands(p.forward_by_path)
    );
    let unit: Vec<String> = (0..k).map(|i| format!("t[{i}]")).collect();
    let _ = writeln!(
        s,
        "            forward.push((\"value_with_differential\", j, v, df({})));",
        tuple(&unit)
    );
    let _ = writeln!(s, "        }}");
    if k == 1 {
        let _ = writeln!(
            s,
            "        let (v, d) = value_with_derivative!({});",
            // `value_with_derivative!` takes exactly one scalar: no `n` beside it.
            operands(p.forward_by_path && !has_n)
        );
        let _ = writeln!(
            s,
            "        forward.push((\"value_with_derivative\", 0, v, d));"
        );
    }
    let _ = writeln!(
        s,
        "        verify(&Observed {{ at: &at, want, oracle: &oracle, reverse: (rv, &rg), forward: &forward }})?;"
    );
    if p.second {
        // Second order: by path for one input, else a closure over an array (which calls
        // `f` through its dual companion too); the oracle seeded along inputs i and j.
        let op = if k == 1 && !has_n {
            "vec![vec![second_derivative!(at: x0, of: f)]]".to_string()
        } else {
            let ps: Vec<String> = (0..k).map(|i| format!("p[{i}]")).collect();
            let mut args = ps.clone();
            if has_n {
                args.push("n".into());
            }
            format!("hessian!(at: [{xs_list}], of: |p| f({}))", args.join(", "))
        };
        let _ = writeln!(
            s,
            "        let second = diff_fuzz::second_order(move || {op})?;"
        );
        let mut hargs: Vec<String> = (0..k)
            .map(|i| format!("H::seeded2(x{i}, ti[{i}], tj[{i}])"))
            .collect();
        if has_n {
            hargs.push("n".into());
        }
        let _ = writeln!(
            s,
            "        let hyper_h: Vec<Vec<H>> = (0..{k}).map(|i| (0..{k}).map(|j| {{ let (ti, tj) = (unit::<{k}>(i), unit::<{k}>(j)); hyper::f({}) }}).collect()).collect();",
            hargs.join(", ")
        );
        let _ = writeln!(
            s,
            "        diff_fuzz::verify_second(&at, second, &hyper_h)?;"
        );
    }
    let _ = writeln!(s, "    }}");
    s.push_str("    Ok(())\n}\n");
    s
}

/// The file of one program: the module body with `SOURCE`, the `f64` program, the oracle in
/// `mod dual`, and `check`.
pub fn program_file(p: &Program, features: &str) -> String {
    let src = source(p);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Program {} of seed {} (features: {features}).",
        p.index, p.seed
    );
    s.push_str(
        "#![allow(warnings, clippy::all)]\n\
         use diff_fuzz::{unit, verify, Observed, D, H};\n\n",
    );
    let _ = writeln!(s, "pub const SOURCE: &str = r#\"{src}\"#;\n");
    s.push_str(&src);
    s.push_str("\nmod dual {\n    use diff_fuzz::D;\n\n");
    s.push_str(&dual_items(p));
    s.push_str("}\n\n");
    if p.second {
        s.push_str("mod hyper {\n    use diff_fuzz::H as D;\n\n");
        s.push_str(&dual_items(p));
        s.push_str("}\n\n");
    }
    s.push_str(&check(p));
    s
}
