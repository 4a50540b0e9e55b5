//! Functions: the helpers, the struct's methods, `f`, and the pruning of helpers `f`
//! does not reach.

use super::*;

impl Gen<'_> {
    pub(super) fn tail_sum(&mut self, terms: Vec<Expr>) -> Expr {
        let mut it = terms.into_iter();
        let mut acc = it.next().unwrap_or(lit(0.0));
        for t in it {
            let t = if self.rng.chance(0.3) {
                bin(BinOp::Mul, lit(self.literal()), t)
            } else {
                t
            };
            let op = if self.rng.chance(0.8) {
                BinOp::Add
            } else {
                BinOp::Sub
            };
            acc = bin(op, acc, t);
        }
        acc
    }

    /// A helper's body: `fuel` statements in a new function scope with `params`.
    pub(super) fn body(&mut self, params: Vec<Var>, fuel: i32, ret: Ret) -> Vec<Stmt> {
        self.scopes = vec![params];
        self.loops.clear();
        self.nest = 0;
        self.fuel = fuel;
        self.ret = ret;
        let n = fuel as usize;
        self.stmts(n)
    }

    pub(super) fn pure_helper(&mut self, name: String) -> Func {
        let arity = self.rng.range(1, 2);
        let names = ["a", "b"];
        let params: Vec<Param> = (0..arity)
            .map(|i| Param {
                name: names[i].to_string(),
                ty: PTy::F,
                mutable: false,
            })
            .collect();
        let vars = params
            .iter()
            .map(|p| Var {
                name: p.name.clone(),
                ty: Ty::F,
                mutable: false,
            })
            .collect();
        let fuel = self.rng.range(0, 3) as i32;
        let body = self.body(vars, fuel, Ret::F);
        let tail = self.bounded(3, 3.0).0;
        let tail = if typed(&tail) { tail } else { place(var("a")) };
        self.scopes.clear();
        self.pure_fns.push((name.clone(), arity));
        Func {
            name,
            recv: Recv::None,
            params,
            body,
            tail: Some(tail),
        }
    }

    pub(super) fn mut_helper(&mut self, name: String) -> Func {
        let muts = if self.rng.chance(0.3) { 2 } else { 1 };
        let vals = self.rng.range(0, 1);
        let returns = self.rng.chance(0.4);
        let mut params = Vec::new();
        let mut vars = Vec::new();
        for i in 0..muts {
            let n = ["p", "q"][i].to_string();
            params.push(Param {
                name: n.clone(),
                ty: PTy::MutF,
                mutable: false,
            });
            vars.push(Var {
                name: n,
                ty: Ty::RefF,
                mutable: true,
            });
        }
        for _ in 0..vals {
            params.push(Param {
                name: "k".into(),
                ty: PTy::F,
                mutable: false,
            });
            vars.push(Var {
                name: "k".into(),
                ty: Ty::F,
                mutable: false,
            });
        }
        let fuel = self.rng.range(0, 3) as i32;
        let ret = if returns { Ret::F } else { Ret::Unit };
        let mut body = self.body(vars, fuel, ret);
        // Every `&mut` parameter is written at least once.
        for i in 0..muts {
            let p = Place::Deref(["p", "q"][i].into());
            let op = self.assign_op();
            let rhs = self.assign_rhs(op);
            body.push(Stmt::Assign { place: p, op, rhs });
        }
        let tail = if returns {
            Some(self.squash_or_keep(3.0))
        } else {
            None
        };
        self.scopes.clear();
        self.mut_fns.push(MutSig {
            name: name.clone(),
            muts,
            vals,
            returns,
        });
        Func {
            name,
            recv: Recv::None,
            params,
            body,
            tail,
        }
    }

    pub(super) fn squash_or_keep(&mut self, max: f64) -> Expr {
        let (e, _) = self.bounded(3, max);
        if typed(&e) {
            e
        } else {
            self.typed_expr(1).0
        }
    }

    pub(super) fn methods(&mut self) -> Vec<Func> {
        let k = Param {
            name: "k".into(),
            ty: PTy::F,
            mutable: false,
        };
        let kv = Var {
            name: "k".into(),
            ty: Ty::F,
            mutable: false,
        };
        // fn get(&self, k: f64) -> f64
        let recv = Var {
            name: "self".into(),
            ty: Ty::SelfRef,
            mutable: false,
        };
        let fuel = self.rng.range(0, 2) as i32;
        let body = self.body(vec![recv, kv.clone()], fuel, Ret::F);
        let tail = self.squash_or_keep(3.0);
        let get = Func {
            name: "get".into(),
            recv: Recv::Ref,
            params: vec![k.clone()],
            body,
            tail: Some(tail),
        };
        self.has_get = true;
        // fn step(&mut self, k: f64)
        let recv = Var {
            name: "self".into(),
            ty: Ty::SelfMut,
            mutable: true,
        };
        let fuel = self.rng.range(0, 3) as i32;
        let mut body = self.body(vec![recv, kv], fuel, Ret::Unit);
        for f in [Fld::A, Fld::B] {
            if self.rng.chance(0.7) {
                let op = self.assign_op();
                let rhs = self.assign_rhs(op);
                body.push(Stmt::Assign {
                    place: Place::SelfField(f),
                    op,
                    rhs,
                });
            }
        }
        self.scopes.clear();
        self.has_step = true;
        vec![
            get,
            Func {
                name: "step".into(),
                recv: Recv::Mut,
                params: vec![k],
                body,
                tail: None,
            },
        ]
    }

    pub(super) fn program(&mut self, seed: u64, index: usize) -> Program {
        self.has_struct = self.on("struct") && self.rng.chance(0.45);
        self.has_v = self.on("ops") && self.rng.chance(0.5);
        let v_block_attr = self.has_v && self.rng.chance(0.5);
        let methods = if self.has_struct {
            self.methods()
        } else {
            Vec::new()
        };
        let mut fns = Vec::new();
        if self.on("swap") {
            let params = ["a", "b"]
                .iter()
                .map(|n| Param {
                    name: n.to_string(),
                    ty: PTy::MutF,
                    mutable: false,
                })
                .collect();
            let t = "t".to_string();
            fns.push(Func {
                name: "swap".into(),
                recv: Recv::None,
                params,
                body: vec![
                    Stmt::Let {
                        name: t.clone(),
                        mutable: false,
                        ty: Ty::F,
                        annotate: false,
                        init: Init::F(place(Place::Deref("a".into()))),
                    },
                    Stmt::Assign {
                        place: Place::Deref("a".into()),
                        op: None,
                        rhs: place(Place::Deref("b".into())),
                    },
                    Stmt::Assign {
                        place: Place::Deref("b".into()),
                        op: None,
                        rhs: place(var(&t)),
                    },
                ],
                tail: None,
            });
            self.mut_fns.push(MutSig {
                name: "swap".into(),
                muts: 2,
                vals: 0,
                returns: false,
            });
        }
        if self.on("calls") {
            for j in 0..self.rng.range(0, 1) {
                let f = self.pure_helper(format!("h{j}"));
                fns.push(f);
            }
        }
        if self.has_v && self.rng.chance(0.6) {
            let f = self.v_helper("hv0".into());
            fns.push(f);
        }
        if self.on("mutref") || self.on("mutfield") {
            for j in 0..self.rng.range(0, 2) {
                let f = self.mut_helper(format!("m{j}"));
                fns.push(f);
            }
        }

        // f itself.
        let inputs = self.rng.range(1, 3);
        let has_n = self.on("n") && self.rng.chance(0.4);
        let mut params = Vec::new();
        let mut vars = Vec::new();
        for name in ["x", "y", "z"].iter().take(inputs) {
            let mutable = self.on("mutparam") && self.rng.chance(0.15);
            params.push(Param {
                name: name.to_string(),
                ty: PTy::F,
                mutable,
            });
            vars.push(Var {
                name: name.to_string(),
                ty: Ty::F,
                mutable,
            });
        }
        if has_n {
            params.push(Param {
                name: "n".into(),
                ty: PTy::Usize,
                mutable: false,
            });
            vars.push(Var {
                name: "n".into(),
                ty: Ty::I,
                mutable: false,
            });
        }
        let fuel = self.rng.range(8, 18) as i32;
        self.scopes = vec![vars, Vec::new()];
        self.loops.clear();
        self.nest = 0;
        self.fuel = fuel;
        self.ret = Ret::F;
        let mut body = Vec::new();
        // Some state to carry through the body.
        if self.rng.chance(0.7) {
            let g = self.fresh("g");
            body.push(Stmt::Let {
                name: g.clone(),
                mutable: true,
                ty: Ty::F,
                annotate: true,
                init: Init::F(lit(0.0)),
            });
            self.declare(&g, Ty::F, true);
        }
        if self.has_struct && self.rng.chance(0.7) {
            let (a, b) = (self.bounded(1, 3.0).0, self.bounded(1, 3.0).0);
            let name = self.fresh("s");
            let annotate = !(typed(&a) && typed(&b));
            self.declare(&name, Ty::S, true);
            body.push(Stmt::Let {
                name,
                mutable: true,
                ty: Ty::S,
                annotate,
                init: Init::Agg(Agg::Struct(a, b)),
            });
        }
        if self.has_v && self.rng.chance(0.7) {
            body.extend(self.let_v(true));
        }
        for _ in 0..self.rng.range(0, 2) {
            body.extend(self.new_state().unwrap_or_default());
        }
        while self.fuel > 0 {
            body.extend(self.stmt());
        }
        // The result reads every local of the top-level scope.
        let mut terms = Vec::new();
        let locals: Vec<Var> = self
            .visible()
            .into_iter()
            .filter(|v| v.ty != Ty::I)
            .collect();
        for v in locals.iter().rev().take(8) {
            match v.ty {
                Ty::F => terms.push(place(var(&v.name))),
                Ty::T2 => {
                    terms.push(place(Place::Field(v.name.clone(), Fld::T0)));
                    terms.push(place(Place::Field(v.name.clone(), Fld::T1)));
                }
                Ty::S => {
                    terms.push(place(Place::Field(v.name.clone(), Fld::A)));
                    terms.push(place(Place::Field(v.name.clone(), Fld::B)));
                }
                Ty::V => {
                    terms.push(place(Place::Field(v.name.clone(), Fld::X)));
                    terms.push(place(Place::Field(v.name.clone(), Fld::Y)));
                }
                Ty::A3 => {
                    for i in 0..3 {
                        terms.push(place(Place::Elem(v.name.clone(), IExpr::Lit(i))));
                    }
                }
                _ => {}
            }
        }
        terms.reverse();
        let tail = self.tail_sum(terms);
        self.scopes.clear();
        fns.push(Func {
            name: "f".into(),
            recv: Recv::None,
            params,
            body,
            tail: Some(tail),
        });

        let points = (0..2)
            .map(|_| Point {
                xs: (0..inputs)
                    .map(|_| (self.rng.range(0, 3000) as f64 - 1500.0) / 1000.0)
                    .collect(),
                n: self.rng.range(0, 4) as u32,
            })
            .collect();
        let mut p = Program {
            seed,
            index,
            has_struct: self.has_struct,
            has_v: self.has_v,
            v_block_attr,
            vecs: self.feats.has("vec"),
            methods,
            fns,
            points,
            reverse_by_path: self.rng.chance(0.5),
            forward_by_path: self.rng.chance(0.5),
            second: self.feats.has("second"),
        };
        prune(&mut p);
        p
    }
}

/// What a body uses: the free functions it calls, and whether it uses the struct.
#[derive(Default)]
struct Uses {
    calls: Vec<String>,
    struct_: bool,
}

impl Uses {
    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Lit(_) | Expr::Place(_) | Expr::IntAsF(_) => {}
            Expr::Neg(a) | Expr::Math(_, a) | Expr::Return(a) => self.expr(a),
            Expr::Bin(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::Call(name, args) => {
                self.calls.push(name.clone());
                args.iter().for_each(|a| self.arg(a));
            }
            Expr::MethodCall { args, .. } => {
                self.struct_ = true;
                args.iter().for_each(|a| self.expr(a));
            }
            Expr::Block(stmts, tail) => {
                self.stmts(stmts);
                self.expr(tail);
            }
            Expr::If(arms, els, ev) => {
                for (c, body, v) in arms {
                    self.cond(c);
                    self.stmts(body);
                    self.expr(v);
                }
                self.stmts(els);
                self.expr(ev);
            }
            Expr::Match(_, arms) => arms.iter().for_each(|a| self.expr(&a.1)),
            Expr::Select(_, es) | Expr::Iter(_, es) => es.iter().for_each(|a| self.expr(a)),
            Expr::VField(v, _) => self.vexpr(v),
            Expr::Dot(a, b) => {
                self.vexpr(a);
                self.vexpr(b);
            }
        }
    }

    fn vexpr(&mut self, v: &VExpr) {
        match v {
            VExpr::Var(_) => {}
            VExpr::Lit(a, b) | VExpr::New(a, b) | VExpr::Make(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            VExpr::Bin(_, a, b) => {
                self.vexpr(a);
                self.vexpr(b);
            }
            VExpr::Scale(a, k) | VExpr::ScaleLeft(k, a) | VExpr::Div(a, k) => {
                self.vexpr(a);
                self.expr(k);
            }
            VExpr::Neg(a) | VExpr::Squashed(a) => self.vexpr(a),
            VExpr::If(c, a, b) => {
                self.cond(c);
                self.vexpr(a);
                self.vexpr(b);
            }
        }
    }

    fn arg(&mut self, a: &Arg) {
        match a {
            Arg::Val(e) => self.expr(e),
            Arg::V(v) => self.vexpr(v),
            Arg::Mut(_) => {}
        }
    }

    fn cond(&mut self, c: &Cond) {
        match c {
            Cond::F(a, _, b) => {
                self.expr(a);
                self.expr(b);
            }
            Cond::I(..) => {}
            Cond::And(a, b) => {
                self.cond(a);
                self.cond(b);
            }
        }
    }

    fn agg(&mut self, a: &Agg) {
        match a {
            Agg::Tuple(x, y) => {
                self.expr(x);
                self.expr(y);
            }
            Agg::Struct(x, y) => {
                self.struct_ = true;
                self.expr(x);
                self.expr(y);
            }
            Agg::StructUpdate(_, e, _) => {
                self.struct_ = true;
                self.expr(e);
            }
            Agg::Array(xs) => xs.iter().for_each(|x| self.expr(x)),
            Agg::Repeat(_) | Agg::Copy(_) => {}
        }
    }

    fn stmts(&mut self, ss: &[Stmt]) {
        for s in ss {
            match s {
                Stmt::Let { init, ty, .. } => {
                    if *ty == Ty::S {
                        self.struct_ = true;
                    }
                    match init {
                        Init::F(e) => self.expr(e),
                        Init::I(_) => {}
                        Init::Agg(a) => self.agg(a),
                        Init::V(v) => self.vexpr(v),
                    }
                }
                Stmt::LetPat { .. }
                | Stmt::Incr(_)
                | Stmt::SliceOp { .. }
                | Stmt::Break(_)
                | Stmt::Continue => {}
                Stmt::Assign { rhs, .. } => self.expr(rhs),
                Stmt::AssignAgg { rhs, .. } => self.agg(rhs),
                Stmt::Call { func, args } => {
                    self.calls.push(func.clone());
                    args.iter().for_each(|a| self.arg(a));
                }
                Stmt::AssignV { op, .. } => match op {
                    VAssign::Set(v) | VAssign::Add(v) | VAssign::Sub(v) => self.vexpr(v),
                    VAssign::Scale(k) => self.expr(k),
                },
                Stmt::MutMethod { args, .. } => {
                    self.struct_ = true;
                    args.iter().for_each(|a| self.expr(a));
                }
                Stmt::If { arms, els } => {
                    for (c, b) in arms {
                        self.cond(c);
                        self.stmts(b);
                    }
                    if let Some(b) = els {
                        self.stmts(b);
                    }
                }
                Stmt::Match { arms, .. } => arms.iter().for_each(|a| self.stmts(&a.1)),
                Stmt::For { body, .. }
                | Stmt::Loop { body, .. }
                | Stmt::LetLoop { body, .. }
                | Stmt::Block(body) => self.stmts(body),
                Stmt::While { cond, body, .. } => {
                    self.cond(cond);
                    self.stmts(body);
                }
                Stmt::BreakValue(e) => self.expr(e),
                Stmt::Return(e) => {
                    if let Some(e) = e {
                        self.expr(e);
                    }
                }
            }
        }
    }

    fn func(&mut self, f: &Func) {
        self.stmts(&f.body);
        if let Some(t) = &f.tail {
            self.expr(t);
        }
    }
}

/// Leaves out the helpers `f` does not reach (they cost compile time and test nothing).
pub fn prune(p: &mut Program) {
    let mut reached = vec!["f".to_string()];
    let mut struct_ = false;
    let mut i = 0;
    while i < reached.len() {
        let mut u = Uses::default();
        if let Some(f) = p.fns.iter().find(|f| f.name == reached[i]) {
            u.func(f);
        }
        if u.struct_ && !struct_ {
            struct_ = true;
            for m in &p.methods {
                let mut mu = Uses::default();
                mu.func(m);
                u.calls.extend(mu.calls);
            }
        }
        for c in u.calls {
            if !reached.contains(&c) {
                reached.push(c);
            }
        }
        i += 1;
    }
    p.fns.retain(|f| reached.contains(&f.name));
    if !struct_ {
        p.has_struct = false;
        p.methods.clear();
    }
}
