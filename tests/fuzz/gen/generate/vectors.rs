//! The struct `V { x, y }` with arithmetic operators of its own (feature `ops`): its
//! expressions, assignments and a helper taking one by value. Every operator on a `V`
//! calls one of the program's `impl`s, which the macro must recognize from the operands:
//! locals built by literals, `V::new`, a free function or a method returning `V`, an `if`
//! yielding one, arithmetic on one, and a parameter of the type.

use super::*;

fn boxed(v: VExpr) -> Box<VExpr> {
    Box::new(v)
}

impl Gen<'_> {
    /// The component of `V` a read or write goes to.
    pub(super) fn v_field(&mut self) -> Fld {
        if self.rng.chance(0.5) {
            Fld::X
        } else {
            Fld::Y
        }
    }

    /// A `V` value built from two components.
    fn v_built(&mut self, depth: usize) -> (VExpr, f64) {
        let (a, ba) = self.bounded(depth, 2.0);
        let (b, bb) = self.bounded(depth, 2.0);
        match self.rng.below(3) {
            0 => (VExpr::Lit(a, b), ba.max(bb)),
            1 => (VExpr::New(a, b), ba.max(bb)),
            // `vmake(a, b) = V::new(a * b, a) - V { x: 0.5, y: b }`.
            _ => (VExpr::Make(a, b), ba * bb + 0.5),
        }
    }

    /// A `V` expression whose components are at most `max` (squashed when larger).
    pub(super) fn vexpr(&mut self, depth: usize, max: f64) -> (VExpr, f64) {
        let (e, b) = self.vexpr_any(depth);
        if b <= max {
            (e, b)
        } else {
            (VExpr::Squashed(boxed(e)), 1.0)
        }
    }

    fn vexpr_any(&mut self, depth: usize) -> (VExpr, f64) {
        let vars = self.vars_of(&[Ty::V], false);
        if depth == 0 || self.rng.chance(0.3) {
            if !vars.is_empty() && self.rng.chance(0.7) {
                let v = self.rng.pick(&vars).name.clone();
                return (VExpr::Var(v), VAR_BOUND);
            }
            return self.v_built(depth.min(1));
        }
        let d = depth - 1;
        let (e, b) = match self.rng.below(10) {
            0 | 1 => {
                let (a, ba) = self.vexpr_any(d);
                let (c, bc) = self.vexpr_any(d);
                let op = if self.rng.chance(0.5) {
                    VOp::Add
                } else {
                    VOp::Sub
                };
                (VExpr::Bin(op, boxed(a), boxed(c)), ba + bc)
            }
            2 => {
                let (a, ba) = self.vexpr_any(d);
                let (c, bc) = self.vexpr_any(d);
                (VExpr::Bin(VOp::Mul, boxed(a), boxed(c)), ba * bc)
            }
            3 => {
                let (a, ba) = self.vexpr_any(d);
                let (k, bk) = self.bounded(d, 2.0);
                (VExpr::Scale(boxed(a), k), ba * bk)
            }
            4 => {
                let (k, bk) = self.bounded(d, 2.0);
                let (a, ba) = self.vexpr_any(d);
                (VExpr::ScaleLeft(k, boxed(a)), ba * bk)
            }
            5 => {
                let (a, ba) = self.vexpr_any(d);
                let den = self.denominator(d);
                (VExpr::Div(boxed(a), den), ba * 2.0)
            }
            6 => {
                let (a, ba) = self.vexpr_any(d);
                (VExpr::Neg(boxed(a)), ba)
            }
            7 => {
                let (a, _) = self.vexpr_any(d);
                (VExpr::Squashed(boxed(a)), 1.0)
            }
            8 => {
                let c = self.cond();
                let (a, ba) = self.vexpr_any(d);
                let (e, be) = self.vexpr_any(d);
                (VExpr::If(c, boxed(a), boxed(e)), ba.max(be))
            }
            _ => self.v_built(d),
        };
        if b > EXPR_LIMIT {
            (VExpr::Squashed(boxed(e)), 1.0)
        } else {
            (e, b)
        }
    }

    /// A float read from a `V` expression: a component, a dot product, or a call of a
    /// helper taking a `V`.
    pub(super) fn v_float(&mut self, depth: usize) -> (Expr, f64) {
        match self.rng.below(4) {
            0 | 1 => {
                let (v, bv) = self.vexpr(depth, 3.0);
                let f = self.v_field();
                (Expr::VField(boxed(v), f), bv)
            }
            2 => {
                let (a, ba) = self.vexpr(depth, 2.0);
                let (b, bb) = self.vexpr(depth, 2.0);
                (Expr::Dot(boxed(a), boxed(b)), 2.0 * ba * bb)
            }
            _ => match self.v_fns.first().cloned() {
                Some(name) => {
                    let (v, _) = self.vexpr(depth, 2.0);
                    let (k, _) = self.bounded(depth, 2.0);
                    (Expr::Call(name, vec![Arg::V(v), Arg::Val(k)]), 3.0)
                }
                None => self.leaf(false),
            },
        }
    }

    /// `p = e;`, `p += e;`, `p -= e;` or `p *= k;` of a mutable `V` local.
    pub(super) fn assign_v(&mut self) -> Option<Vec<Stmt>> {
        let name = self.pick_mutable_local(&[Ty::V])?.name;
        let op = match self.rng.below(5) {
            0 | 1 => VAssign::Set(self.vexpr(2, 3.0).0),
            2 => VAssign::Add(self.vexpr(2, 1.5).0),
            3 => VAssign::Sub(self.vexpr(2, 1.5).0),
            _ => VAssign::Scale(self.factor()),
        };
        Some(vec![Stmt::AssignV { name, op }])
    }

    /// `let p = e;` of a `V`, sometimes typed, sometimes mutable.
    pub(super) fn let_v(&mut self, mutable: bool) -> Vec<Stmt> {
        let (e, _) = self.vexpr(2, 3.0);
        let name = self.fresh("p");
        let annotate = self.rng.chance(0.2);
        self.declare(&name, Ty::V, mutable);
        vec![Stmt::Let {
            name,
            mutable,
            ty: Ty::V,
            annotate,
            init: Init::V(e),
        }]
    }

    /// `fn hv0(p: V, a: f64) -> f64`: a helper whose operand is a parameter of the type.
    pub(super) fn v_helper(&mut self, name: String) -> Func {
        let params = vec![
            Param {
                name: "p".into(),
                ty: PTy::V,
                mutable: false,
            },
            Param {
                name: "a".into(),
                ty: PTy::F,
                mutable: false,
            },
        ];
        let vars = vec![
            Var {
                name: "p".into(),
                ty: Ty::V,
                mutable: false,
            },
            Var {
                name: "a".into(),
                ty: Ty::F,
                mutable: false,
            },
        ];
        let fuel = self.rng.range(0, 3) as i32;
        let body = self.body(vars, fuel, Ret::F);
        let (v, _) = self.vexpr(2, 2.0);
        let f = self.v_field();
        let tail = bin(
            BinOp::Add,
            Expr::VField(boxed(v), f),
            self.bounded(2, 2.0).0,
        );
        self.scopes.clear();
        self.v_fns.push(name.clone());
        Func {
            name,
            recv: Recv::None,
            params,
            body,
            tail: Some(tail),
        }
    }
}
