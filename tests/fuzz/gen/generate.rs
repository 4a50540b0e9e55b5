//! Random programs. The generator tracks the locals in scope with their types and
//! mutability, so every program type-checks and borrow-checks, and a rough bound on the
//! magnitude of every expression, so values stay finite: loops are short, stored values are
//! squashed (`tanh`, `sin`, ...) when they could grow, `exp` only sees bounded arguments,
//! and denominators and square roots are kept away from zero.

mod functions;
mod statements;
mod vectors;
mod written;

use super::ast::*;
use super::features::Features;
use super::rng::Rng;

/// The assumed bound of a value read from a local.
const VAR_BOUND: f64 = 2.0;
/// Expressions that could be larger are squashed.
const EXPR_LIMIT: f64 = 10.0;

#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
}

/// What the function being generated returns.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ret {
    F,
    Unit,
}

/// The signature of a helper with `&mut f64` parameters.
#[derive(Clone, Debug)]
struct MutSig {
    name: String,
    muts: usize,
    vals: usize,
    returns: bool,
}

/// An enclosing loop: its label and whether it is a `loop` giving a value.
#[derive(Clone, Debug)]
struct LoopInfo {
    label: Option<String>,
    value: bool,
}

pub struct Gen<'a> {
    rng: Rng,
    feats: &'a Features,
    scopes: Vec<Vec<Var>>,
    loops: Vec<LoopInfo>,
    nest: usize,
    fuel: i32,
    counter: usize,
    pure_fns: Vec<(String, usize)>,
    mut_fns: Vec<MutSig>,
    has_struct: bool,
    /// Whether the program has the struct `V` with operators (feature `ops`).
    has_v: bool,
    /// Helpers taking a `V` and an `f64`.
    v_fns: Vec<String>,
    has_get: bool,
    has_step: bool,
    ret: Ret,
    forbidden: Vec<String>,
    /// The indices of the `for` loops being generated whose range lets arrays be read at
    /// offsets of them (feature `neighbours`): name, lowest and highest offset.
    windows: Vec<(String, i64, i64)>,
}

/// The program `index` of a run, from its own seed.
pub fn program(seed: u64, index: usize, feats: &Features) -> Program {
    let pseed = super::rng::program_seed(seed, index);
    let mut g = Gen {
        rng: Rng::new(pseed),
        feats,
        scopes: Vec::new(),
        loops: Vec::new(),
        nest: 0,
        fuel: 0,
        counter: 0,
        pure_fns: Vec::new(),
        mut_fns: Vec::new(),
        has_struct: false,
        has_v: false,
        v_fns: Vec::new(),
        has_get: false,
        has_step: false,
        ret: Ret::F,
        forbidden: Vec::new(),
        windows: Vec::new(),
    };
    g.program(seed, index)
}

fn lit(v: f64) -> Expr {
    Expr::Lit(v)
}
fn place(p: Place) -> Expr {
    Expr::Place(p)
}
fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Bin(op, Box::new(a), Box::new(b))
}
fn math(m: Math, a: Expr) -> Expr {
    Expr::Math(m, Box::new(a))
}
fn var(n: &str) -> Place {
    Place::Var(n.to_string())
}

/// Whether an expression has a known type (`f64`): a literal-only expression is
/// `{float}`, on which a method call does not type-check.
fn typed(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => false,
        Expr::Place(_)
        | Expr::IntAsF(_)
        | Expr::Call(..)
        | Expr::MethodCall { .. }
        | Expr::VField(..)
        | Expr::Dot(..) => true,
        Expr::Return(_) => false,
        Expr::Neg(a) | Expr::Math(_, a) => typed(a),
        Expr::Bin(_, a, b) => typed(a) || typed(b),
        Expr::Block(_, t) => typed(t),
        Expr::If(arms, _, e) => typed(e) || arms.iter().any(|a| typed(&a.2)),
        Expr::Match(_, arms) => arms.iter().any(|a| typed(&a.1)),
        Expr::Select(_, es) => es.iter().any(typed),
        Expr::Iter(..) => true,
    }
}

impl Gen<'_> {
    fn on(&self, f: &str) -> bool {
        self.feats.has(f)
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    fn declare(&mut self, name: &str, ty: Ty, mutable: bool) {
        self.scopes.last_mut().expect("a scope").push(Var {
            name: name.to_string(),
            ty,
            mutable,
        });
    }

    /// The locals in scope, the innermost binding of each name.
    fn visible(&self) -> Vec<Var> {
        let mut seen: Vec<Var> = Vec::new();
        for scope in self.scopes.iter().rev() {
            for v in scope.iter().rev() {
                if !seen.iter().any(|s| s.name == v.name) {
                    seen.push(v.clone());
                }
            }
        }
        seen.reverse();
        seen
    }

    fn allowed(&self, name: &str) -> bool {
        !self.forbidden.iter().any(|f| f == name)
    }

    fn int_vars(&self) -> Vec<String> {
        self.visible()
            .into_iter()
            .filter(|v| v.ty == Ty::I)
            .map(|v| v.name)
            .collect()
    }

    fn vars_of(&self, tys: &[Ty], mutable: bool) -> Vec<Var> {
        self.visible()
            .into_iter()
            .filter(|v| tys.contains(&v.ty) && self.allowed(&v.name))
            .filter(|v| !mutable || v.mutable || matches!(v.ty, Ty::RefF | Ty::SelfMut | Ty::Chunk))
            .collect()
    }

    /// One of the mutable locals of types `tys` (not a reference that `vars_of` admits
    /// as mutable), picked at random; `None` when there is none.
    fn pick_mutable_local(&mut self, tys: &[Ty]) -> Option<Var> {
        let locals: Vec<Var> = self
            .vars_of(tys, true)
            .into_iter()
            .filter(|v| v.mutable)
            .collect();
        if locals.is_empty() {
            return None;
        }
        Some(self.rng.pick(&locals).clone())
    }

    fn arr_index(&mut self) -> IExpr {
        let ints = self.int_vars();
        let windows: Vec<(String, i64, i64)> = self
            .windows
            .iter()
            .filter(|w| ints.contains(&w.0))
            .cloned()
            .collect();
        if !windows.is_empty() && self.rng.chance(0.6) {
            let (name, low, high) = self.rng.pick(&windows).clone();
            let i = Box::new(IExpr::Var(name));
            return match low + self.rng.below((high - low + 1) as usize) as i64 {
                o if o < 0 => IExpr::Sub(i, o.unsigned_abs() as u32),
                0 => *i,
                o => IExpr::Add(i, o as u32),
            };
        }
        if !ints.is_empty() && self.rng.chance(0.4) {
            let i = IExpr::Var(self.rng.pick(&ints).clone());
            if self.rng.chance(0.3) {
                IExpr::Mod(Box::new(IExpr::Add(Box::new(i), 1)), 3)
            } else {
                IExpr::Mod(Box::new(i), 3)
            }
        } else {
            IExpr::Lit(self.rng.below(3) as u32)
        }
    }

    /// A place of the local `v`, holding an `f64`.
    fn place_of(&mut self, v: &Var) -> Place {
        let ab = if self.rng.chance(0.5) { Fld::A } else { Fld::B };
        match v.ty {
            Ty::F => var(&v.name),
            Ty::T2 => {
                let f = if self.rng.chance(0.5) {
                    Fld::T0
                } else {
                    Fld::T1
                };
                Place::Field(v.name.clone(), f)
            }
            Ty::A3 => {
                let i = self.arr_index();
                Place::Elem(v.name.clone(), i)
            }
            Ty::S => Place::Field(v.name.clone(), ab),
            Ty::V => {
                let f = self.v_field();
                Place::Field(v.name.clone(), f)
            }
            Ty::RefF => Place::Deref(v.name.clone()),
            Ty::Chunk => Place::Elem(v.name.clone(), IExpr::Lit(0)),
            Ty::SelfMut | Ty::SelfRef => Place::SelfField(ab),
            Ty::I => unreachable!("no f64 place in an integer"),
        }
    }

    const FLOAT_TYS: [Ty; 9] = [
        Ty::F,
        Ty::Chunk,
        Ty::T2,
        Ty::A3,
        Ty::S,
        Ty::V,
        Ty::RefF,
        Ty::SelfMut,
        Ty::SelfRef,
    ];

    fn read_place(&mut self) -> Option<Place> {
        let vs = self.vars_of(&Self::FLOAT_TYS, false);
        if vs.is_empty() {
            return None;
        }
        let v = self.rng.pick(&vs).clone();
        Some(self.place_of(&v))
    }

    fn write_place(&mut self) -> Option<Place> {
        let vs = self.vars_of(&Self::FLOAT_TYS, true);
        if vs.is_empty() {
            return None;
        }
        let v = self.rng.pick(&vs).clone();
        Some(self.place_of(&v))
    }

    fn literal(&mut self) -> f64 {
        if self.rng.chance(0.6) {
            *self
                .rng
                .pick(&[0.1, 0.2, 0.25, 0.3, 0.5, 0.75, 0.9, 1.0, 1.5, 2.0, 3.0])
        } else {
            (self.rng.range(1, 199) as f64) / 100.0
        }
    }

    fn int_expr(&mut self) -> Option<IExpr> {
        let ints = self.int_vars();
        if ints.is_empty() {
            return None;
        }
        let i = IExpr::Var(self.rng.pick(&ints).clone());
        Some(match self.rng.below(3) {
            0 => i,
            1 => IExpr::Mod(Box::new(i), self.rng.range(2, 3) as u32),
            _ => IExpr::Add(Box::new(i), 1),
        })
    }

    // ---------------------------------------------------------------------------------
    // Expressions.

    /// A leaf: a read, a literal, or an integer as `f64`.
    fn leaf(&mut self, want_typed: bool) -> (Expr, f64) {
        let r = self.rng.below(10);
        if r < 1 {
            if let Some(i) = self.int_expr() {
                return (Expr::IntAsF(i), 5.0);
            }
        }
        if r < 8 || want_typed {
            if let Some(p) = self.read_place() {
                return (place(p), VAR_BOUND);
            }
        }
        let c = self.literal();
        (lit(c), c)
    }

    /// An expression of bound at most `max` (squashed if it could be larger).
    fn bounded(&mut self, depth: usize, max: f64) -> (Expr, f64) {
        let (e, b) = self.expr(depth);
        if b <= max {
            (e, b)
        } else {
            self.squash(e, max)
        }
    }

    /// `e` mapped into `[-max, max]`.
    fn squash(&mut self, e: Expr, max: f64) -> (Expr, f64) {
        if !typed(&e) {
            let c = self.literal().min(max);
            return (lit(c), c);
        }
        let m = *self.rng.pick(&[Math::Tanh, Math::Sin, Math::Cos]);
        let s = math(m, e);
        if max >= 1.0 {
            (s, 1.0)
        } else {
            (bin(BinOp::Mul, lit(0.5), s), 0.5)
        }
    }

    /// An expression with a type (contains a read).
    fn typed_expr(&mut self, depth: usize) -> (Expr, f64) {
        for _ in 0..4 {
            let (e, b) = self.expr(depth);
            if typed(&e) {
                return (e, b);
            }
        }
        self.leaf(true)
    }

    /// A denominator at least 0.5 away from zero.
    fn denominator(&mut self, depth: usize) -> Expr {
        let (e, _) = self.typed_expr(depth);
        if !typed(&e) {
            return lit(*self.rng.pick(&[2.0, 3.0, 1.5]));
        }
        match self.rng.below(5) {
            0 => bin(BinOp::Add, bin(BinOp::Mul, e.clone(), e), lit(1.0)),
            1 => bin(BinOp::Add, lit(2.0), math(Math::Cos, e)),
            2 => bin(BinOp::Add, lit(1.0), math(Math::Powi2, e)),
            3 => bin(BinOp::Add, lit(1.5), math(Math::Tanh, e)),
            _ => bin(BinOp::Add, math(Math::Exp, math(Math::Sin, e)), lit(0.5)),
        }
    }

    fn expr(&mut self, depth: usize) -> (Expr, f64) {
        if depth == 0 || self.rng.chance(0.25) {
            return self.leaf(false);
        }
        let d = depth - 1;
        let kinds = if self.on("iter") { 26 } else { 24 };
        let (e, b) = match self.rng.below(kinds) {
            0..=3 => {
                let (a, ba) = self.expr(d);
                let (c, bc) = self.expr(d);
                let op = if self.rng.chance(0.5) {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                (bin(op, a, c), ba + bc)
            }
            4..=7 => {
                let (a, ba) = self.expr(d);
                let (c, bc) = self.expr(d);
                (bin(BinOp::Mul, a, c), ba * bc)
            }
            8 => {
                let (a, ba) = self.expr(d);
                let den = self.denominator(d);
                (bin(BinOp::Div, a, den), ba * 2.0)
            }
            9 => {
                let (a, ba) = self.expr(d);
                match a {
                    Expr::Neg(_) | Expr::Lit(_) => (a, ba),
                    a => (Expr::Neg(Box::new(a)), ba),
                }
            }
            10..=13 => {
                let (a, _) = self.typed_expr(d);
                let m = *self.rng.pick(&[Math::Sin, Math::Cos, Math::Tanh]);
                (math(m, a), 1.0)
            }
            14 => {
                let (a, _) = self.typed_expr(d);
                let arg = match self.rng.below(3) {
                    0 => math(Math::Tanh, a),
                    1 => bin(BinOp::Mul, lit(0.5), math(Math::Sin, a)),
                    _ => Expr::Neg(Box::new(math(Math::Powi2, a))),
                };
                (math(Math::Exp, arg), 2.8)
            }
            15 => {
                let (a, ba) = self.typed_expr(d);
                let c = *self.rng.pick(&[0.5, 1.0, 2.0]);
                let inner = if self.rng.chance(0.5) {
                    bin(BinOp::Add, bin(BinOp::Mul, a.clone(), a), lit(c))
                } else {
                    bin(BinOp::Add, math(Math::Powi2, a), lit(c))
                };
                (math(Math::Sqrt, inner), (ba * ba + c).sqrt())
            }
            16 => {
                let (a, ba) = self.typed_expr(d);
                (math(Math::Powi2, a), ba * ba)
            }
            17 | 18 if self.on("calls") && !self.pure_fns.is_empty() => {
                let (name, arity) = self.rng.pick(&self.pure_fns).clone();
                let args = (0..arity)
                    .map(|_| Arg::Val(self.bounded(d, 3.0).0))
                    .collect();
                (Expr::Call(name, args), 3.0)
            }
            19 if self.has_get => {
                let recvs = self.vars_of(&[Ty::S, Ty::SelfMut], false);
                if recvs.is_empty() {
                    self.leaf(false)
                } else {
                    let r = self.rng.pick(&recvs).clone();
                    let (k, _) = self.bounded(d, 2.0);
                    let ufcs = r.ty == Ty::S && self.rng.chance(0.3);
                    let recv = if r.ty == Ty::S {
                        r.name
                    } else {
                        "self".to_string()
                    };
                    (
                        Expr::MethodCall {
                            recv,
                            method: "get".into(),
                            args: vec![k],
                            ufcs,
                        },
                        3.0,
                    )
                }
            }
            20 | 21 if self.has_v => self.v_float(d),
            22 | 23 if self.on("select") => {
                let kind = *self.rng.pick(&[
                    Select::MaxFold,
                    Select::MinBy,
                    Select::MaxBy,
                    Select::Option,
                ]);
                let parts: Vec<(Expr, f64)> = (0..3).map(|_| self.bounded(d, 3.0)).collect();
                let bound = match kind {
                    Select::Option => parts[1].1.max(parts[0].1 * parts[2].1),
                    _ => parts.iter().map(|p| p.1).fold(0.0, f64::max),
                };
                (
                    Expr::Select(kind, parts.into_iter().map(|p| p.0).collect()),
                    bound,
                )
            }
            24 | 25 => {
                let kind = *self.rng.pick(&[
                    IterKind::SumSquares,
                    IterKind::ZipRev,
                    IterKind::Enumerate,
                    IterKind::Fold,
                    IterKind::RevSkipProduct,
                    IterKind::Filter,
                    IterKind::Windows,
                    IterKind::Collect,
                    IterKind::Chain,
                    IterKind::Position,
                    IterKind::ArrayMap,
                    IterKind::StepByLoop,
                    IterKind::TakeWhile,
                    IterKind::FilterMap,
                    IterKind::FilterMapThen,
                    IterKind::SkipWhile,
                ]);
                let parts: Vec<(Expr, f64)> = (0..3).map(|_| self.bounded(d, 2.0)).collect();
                let m = parts.iter().map(|p| p.1).fold(0.0, f64::max);
                let bound = match kind {
                    IterKind::SumSquares | IterKind::ZipRev => 3.0 * m * m,
                    IterKind::Enumerate => 6.0 * m,
                    IterKind::Fold => 2.0 * m,
                    IterKind::RevSkipProduct | IterKind::Collect => 2.0,
                    IterKind::Filter => 6.0 * m,
                    IterKind::Windows => 8.0 * m * m,
                    IterKind::Chain => 2.5 * m,
                    IterKind::Position => 2.0 * m,
                    IterKind::ArrayMap => 3.0 * m,
                    IterKind::StepByLoop => 2.0 * m * m,
                    IterKind::TakeWhile => 3.0 * m * m,
                    IterKind::FilterMap => 4.5 * m,
                    IterKind::FilterMapThen => 1.0,
                    IterKind::SkipWhile => 3.0,
                };
                (
                    Expr::Iter(kind, parts.into_iter().map(|p| p.0).collect()),
                    bound,
                )
            }
            _ => self.leaf(false),
        };
        if b > EXPR_LIMIT {
            self.squash(e, 1.0)
        } else {
            (e, b)
        }
    }

    /// A multiplier of magnitude at most about 1.
    fn factor(&mut self) -> Expr {
        match self.rng.below(3) {
            0 => lit(*self.rng.pick(&[0.5, 0.9, 0.75, 1.1, 0.3])),
            _ => {
                let (e, _) = self.typed_expr(1);
                self.squash(e, 1.0).0
            }
        }
    }

    fn cond(&mut self) -> Cond {
        let ints = self.int_vars();
        if !ints.is_empty() && self.rng.chance(0.35) {
            let i = self.int_expr().expect("ints");
            let op = *self
                .rng
                .pick(&[CmpOp::Lt, CmpOp::Gt, CmpOp::Eq, CmpOp::Ne, CmpOp::Ge]);
            // Not `< 0` or `>= 0` on unsigned integers (always false or true).
            let c = IExpr::Lit(self.rng.range(1, 2) as u32);
            return Cond::I(i, op, c);
        }
        let (a, _) = self.typed_expr(1);
        let op = *self.rng.pick(&[CmpOp::Lt, CmpOp::Gt, CmpOp::Le, CmpOp::Ge]);
        let b = if self.rng.chance(0.7) {
            lit((self.rng.range(0, 30) as f64 - 15.0) / 10.0)
        } else {
            self.leaf(false).0
        };
        let c = Cond::F(a, op, b);
        if self.rng.chance(0.1) {
            let d = self.cond();
            Cond::And(Box::new(c), Box::new(d))
        } else {
            c
        }
    }
}
