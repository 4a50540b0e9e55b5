//! Statements: each kind of statement the programs contain, in scope.

use super::*;

impl Gen<'_> {
    pub(super) fn block(&mut self, max: usize) -> Vec<Stmt> {
        self.scopes.push(Vec::new());
        self.nest += 1;
        let n = self.rng.range(1, max);
        let mut body = self.stmts(n);
        body.extend(self.sink_locals());
        self.nest -= 1;
        self.scopes.pop();
        body
    }

    /// Before a scope ends: its new `f64` locals flow into places declared outside it
    /// (`g += 0.5 * a;`), so that what a block computes reaches the result.
    pub(super) fn sink_locals(&mut self) -> Vec<Stmt> {
        let locals: Vec<String> = self
            .scopes
            .last()
            .map(|s| {
                s.iter()
                    .filter(|v| v.ty == Ty::F)
                    .map(|v| v.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        let mut out = Vec::new();
        for name in locals {
            if !self.rng.chance(0.6) {
                continue;
            }
            let inner = self.scopes.pop().expect("a scope");
            let target = self.write_place();
            self.scopes.push(inner);
            let Some(target) = target else { break };
            // A local of this scope may shadow the target's name.
            let root = target.root().to_string();
            if self
                .scopes
                .last()
                .is_some_and(|s| s.iter().any(|v| v.name == root))
            {
                continue;
            }
            let rhs = if self.rng.chance(0.7) {
                bin(BinOp::Mul, lit(0.5), place(var(&name)))
            } else {
                math(Math::Tanh, place(var(&name)))
            };
            let op = if self.rng.chance(0.8) {
                Some(BinOp::Add)
            } else {
                Some(BinOp::Sub)
            };
            out.push(Stmt::Assign {
                place: target,
                op,
                rhs,
            });
        }
        out
    }

    pub(super) fn stmts(&mut self, n: usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..n {
            if self.fuel <= 0 {
                break;
            }
            out.extend(self.stmt());
        }
        out
    }

    pub(super) fn can_loop(&self) -> bool {
        let loops = self.loops.len();
        self.nest < 3
            && (loops == 0 || (loops < 2 && self.on("nested")))
            && (self.on("for") || self.on("while") || self.on("loop"))
    }

    pub(super) fn can_return(&self) -> bool {
        (self.loops.is_empty() || self.on("retloop")) && self.on("return")
    }

    pub(super) fn stmt(&mut self) -> Vec<Stmt> {
        self.fuel -= 1;
        let in_loop = !self.loops.is_empty();
        let has_f = !self.vars_of(&[Ty::F], false).is_empty();
        let writable = self.vars_of(&Self::FLOAT_TYS, true);
        let aggs = self.vars_of(&[Ty::T2, Ty::A3, Ty::S], false);
        let mutable_s = self.vars_of(&[Ty::S], true).into_iter().any(|v| v.mutable);
        let ctl = self.nest < 3;
        let mutable_v = self.vars_of(&[Ty::V], true).iter().any(|v| v.mutable);
        let written = self.can_loop()
            && self.on("itermut")
            && self.vars_of(&[Ty::A3], true).iter().any(|v| v.mutable);
        let views = self.on("views") && self.vars_of(&[Ty::A3], true).iter().any(|v| v.mutable);
        let weights: [(u32, bool); 28] = [
            (10, true),                                                     // 0 let
            (12, !writable.is_empty()),                                     // 1 assign
            (5, has_f && self.on("shadow")),                                // 2 shadow
            (3, self.on("alias")),                                          // 3 alias
            (3, self.on("mutcopy")),                                        // 4 mutcopy
            (3, ctl && self.on("shadow")),                                  // 5 block
            (6, ctl && self.on("if")),                                      // 6 if
            (4, ctl && self.on("match") && !self.int_vars().is_empty()),    // 7 match
            (9, self.can_loop()),                                           // 8 loop
            (4, self.can_loop() && self.on("carried")),                     // 9 carried
            (3, writable.len() >= 2 && self.on("swap")),                    // 10 swap tmp
            (3, self.on("swap")),                                           // 11 swap call
            (4, !writable.is_empty() && self.on("blockassign")),            // 12 block assign
            (5, !self.mut_fns.is_empty()),                                  // 13 &mut call
            (4, mutable_s && self.has_step),                                // 14 method
            (3, !aggs.is_empty()),                                          // 15 aggregate assign
            (2, !aggs.is_empty()),                                          // 16 let pattern
            (3, true),                                                      // 17 new state
            (4, in_loop && self.on("breakcont")),                           // 18 break/continue
            (3, self.can_return()),                                         // 19 return
            (3, self.on("ifexpr")),                                         // 20 let if
            (2, self.on("match") && !self.int_vars().is_empty()),           // 21 let match
            (2, self.can_loop() && self.on("breakval") && self.on("loop")), // 22 let loop
            (
                3,
                self.loops.is_empty() && self.nest < 3 && self.on("reduce"),
            ), // 23 reduce
            (5, mutable_v),                                                 // 24 V assign
            (3, self.has_v),                                                // 25 V let
            (5, written),                                                   // 26 written loop
            (3, views),                                                     // 27 slice op
        ];
        let ws: Vec<u32> = weights
            .iter()
            .map(|(w, ok)| if *ok { *w } else { 0 })
            .collect();
        let choice = self.rng.weighted(&ws).unwrap_or(0);
        let out = match choice {
            1 => self.assign(),
            2 => self.shadow(),
            3 => self.alias(),
            4 => self.mutcopy(),
            5 => self.inner_block(),
            6 => self.if_stmt(),
            7 => self.match_stmt(),
            8 => {
                let body = |g: &mut Self| {
                    let n = g.rng.range(1, 3);
                    g.stmts(n)
                };
                self.looped(body)
            }
            9 => self.carried(),
            10 => self.swap_tmp(),
            11 => self.swap_call(),
            12 => self.block_assign(),
            13 => self.mut_call(),
            14 => self.method_stmt(),
            15 => self.agg_assign(),
            16 => self.let_pattern(),
            17 => self.new_state(),
            18 => self.break_continue(),
            19 => self.early_return(),
            20 => self.let_if(),
            21 => self.let_match(),
            22 => self.let_loop(),
            23 => self.reduce(),
            24 => self.assign_v(),
            26 => self.written_loop(),
            27 => self.slice_op(),
            25 => {
                let mutable = self.rng.chance(0.6);
                Some(self.let_v(mutable))
            }
            _ => None,
        };
        match out {
            Some(s) if !s.is_empty() => s,
            _ => self.let_f(),
        }
    }

    pub(super) fn let_f(&mut self) -> Vec<Stmt> {
        let (e, _) = self.bounded(3, 4.0);
        let prefix = *self.rng.pick(&["a", "b", "c", "g", "u", "v", "w"]);
        let name = self.fresh(prefix);
        let mutable = self.rng.chance(0.5);
        let annotate = !typed(&e) || self.rng.chance(0.15);
        self.declare(&name, Ty::F, mutable);
        vec![Stmt::Let {
            name,
            mutable,
            ty: Ty::F,
            annotate,
            init: Init::F(e),
        }]
    }

    /// The right side of `p op= rhs`, kept bounded when repeated in a loop.
    pub(super) fn assign_rhs(&mut self, op: Option<BinOp>) -> Expr {
        match op {
            None => self.bounded(3, 3.0).0,
            Some(BinOp::Add) | Some(BinOp::Sub) => self.bounded(2, 1.5).0,
            Some(BinOp::Mul) => self.factor(),
            Some(BinOp::Div) => self.denominator(1),
        }
    }

    pub(super) fn assign_op(&mut self) -> Option<BinOp> {
        match self.rng.below(20) {
            0..=7 => None,
            8..=11 => Some(BinOp::Add),
            12..=14 => Some(BinOp::Sub),
            15..=17 => Some(BinOp::Mul),
            _ => Some(BinOp::Div),
        }
    }

    pub(super) fn assign(&mut self) -> Option<Vec<Stmt>> {
        let p = self.write_place()?;
        let op = self.assign_op();
        let rhs = self.assign_rhs(op);
        Some(vec![Stmt::Assign { place: p, op, rhs }])
    }

    pub(super) fn shadow(&mut self) -> Option<Vec<Stmt>> {
        let fs = self.vars_of(&[Ty::F], false);
        if fs.is_empty() {
            return None;
        }
        let aggs = self.vars_of(&[Ty::T2, Ty::S, Ty::V], false);
        if !aggs.is_empty() && self.rng.chance(0.1) {
            // A local of another type shadowed by an f64: `let t = t.0 + t.1;`
            let v = self.rng.pick(&aggs).clone();
            let (f0, f1) = match v.ty {
                Ty::T2 => (Fld::T0, Fld::T1),
                Ty::V => (Fld::X, Fld::Y),
                _ => (Fld::A, Fld::B),
            };
            let e = bin(
                BinOp::Add,
                place(Place::Field(v.name.clone(), f0)),
                bin(
                    BinOp::Mul,
                    lit(0.5),
                    place(Place::Field(v.name.clone(), f1)),
                ),
            );
            self.declare(&v.name, Ty::F, false);
            return Some(vec![Stmt::Let {
                name: v.name,
                mutable: false,
                ty: Ty::F,
                annotate: false,
                init: Init::F(e),
            }]);
        }
        let v = self.rng.pick(&fs).clone();
        let old = place(var(&v.name));
        if self.rng.chance(0.15) {
            // `let mut x = x;`
            self.declare(&v.name, Ty::F, true);
            return Some(vec![Stmt::Let {
                name: v.name,
                mutable: true,
                ty: Ty::F,
                annotate: false,
                init: Init::F(old),
            }]);
        }
        let e = match self.rng.below(4) {
            0 => bin(BinOp::Mul, old, lit(*self.rng.pick(&[2.0, 0.5, 1.5]))),
            1 => {
                let (r, _) = self.bounded(2, 1.0);
                bin(BinOp::Add, bin(BinOp::Mul, old, lit(0.5)), r)
            }
            2 => {
                let m = *self.rng.pick(&[Math::Sin, Math::Tanh, Math::Cos]);
                math(m, old)
            }
            _ => {
                let f = self.factor();
                bin(BinOp::Mul, old, f)
            }
        };
        let mutable = self.rng.chance(0.3);
        self.declare(&v.name, Ty::F, mutable);
        Some(vec![Stmt::Let {
            name: v.name,
            mutable,
            ty: Ty::F,
            annotate: self.rng.chance(0.1),
            init: Init::F(e),
        }])
    }

    pub(super) fn alias(&mut self) -> Option<Vec<Stmt>> {
        let vs = self.vars_of(&[Ty::F, Ty::T2, Ty::A3, Ty::S, Ty::V, Ty::RefF], false);
        if vs.is_empty() {
            return None;
        }
        let v = self.rng.pick(&vs).clone();
        let name = self.fresh("b");
        let (ty, init) = match v.ty {
            Ty::F => (Ty::F, Init::F(place(var(&v.name)))),
            Ty::RefF => (Ty::F, Init::F(place(Place::Deref(v.name.clone())))),
            t => (t, Init::Agg(Agg::Copy(v.name.clone()))),
        };
        self.declare(&name, ty, false);
        Some(vec![Stmt::Let {
            name,
            mutable: false,
            ty,
            annotate: false,
            init,
        }])
    }

    pub(super) fn mutcopy(&mut self) -> Option<Vec<Stmt>> {
        let vs = self.vars_of(&[Ty::F, Ty::T2, Ty::A3, Ty::S, Ty::V], false);
        if vs.is_empty() {
            return None;
        }
        let v = self.rng.pick(&vs).clone();
        let name = self.fresh("c");
        let init = match v.ty {
            Ty::F => Init::F(place(var(&v.name))),
            _ => Init::Agg(Agg::Copy(v.name.clone())),
        };
        self.declare(&name, v.ty, true);
        let copy = Var {
            name: name.clone(),
            ty: v.ty,
            mutable: true,
        };
        let p = self.place_of(&copy);
        let op = Some(*self.rng.pick(&[BinOp::Add, BinOp::Mul, BinOp::Sub]));
        let rhs = self.assign_rhs(op);
        Some(vec![
            Stmt::Let {
                name,
                mutable: true,
                ty: v.ty,
                annotate: false,
                init,
            },
            Stmt::Assign { place: p, op, rhs },
        ])
    }

    pub(super) fn inner_block(&mut self) -> Option<Vec<Stmt>> {
        self.scopes.push(Vec::new());
        self.nest += 1;
        let mut body = Vec::new();
        if self.on("shadow") && !self.vars_of(&[Ty::F], false).is_empty() {
            body.extend(self.shadow().unwrap_or_default());
        }
        let n = self.rng.range(1, 3);
        body.extend(self.stmts(n));
        body.extend(self.sink_locals());
        self.nest -= 1;
        self.scopes.pop();
        Some(vec![Stmt::Block(body)])
    }

    pub(super) fn if_stmt(&mut self) -> Option<Vec<Stmt>> {
        let n = self.rng.range(1, 3);
        let mut arms = Vec::new();
        for _ in 0..n {
            let c = self.cond();
            let b = self.block(3);
            arms.push((c, b));
        }
        let els = if self.rng.chance(0.6) {
            Some(self.block(2))
        } else {
            None
        };
        Some(vec![Stmt::If { arms, els }])
    }

    pub(super) fn scrutinee(&mut self) -> Option<IExpr> {
        let ints = self.int_vars();
        if ints.is_empty() {
            return None;
        }
        let i = IExpr::Var(self.rng.pick(&ints).clone());
        Some(if self.rng.chance(0.8) {
            IExpr::Mod(Box::new(i), 3)
        } else {
            i
        })
    }

    pub(super) fn match_stmt(&mut self) -> Option<Vec<Stmt>> {
        let scrut = self.scrutinee()?;
        let k = self.rng.range(1, 2) as u32;
        let mut arms = Vec::new();
        for v in 0..=k {
            let b = self.block(2);
            arms.push((if v < k { Some(v) } else { None }, b));
        }
        Some(vec![Stmt::Match { scrut, arms }])
    }

    /// With probability `p` (feature `neighbours`), the range of a loop whose index reads
    /// arrays at offsets that stay in `0..3`, and those offsets: `0..2` (i, i + 1), `1..3`
    /// (i - 1, i), `1..2` (i - 1 .. i + 1), as `(lo, hi, lowest, highest)`.
    fn window(&mut self, p: f64) -> Option<(u32, u32, i64, i64)> {
        (self.on("neighbours") && self.rng.chance(p))
            .then(|| *self.rng.pick(&[(0, 2, 0, 1), (1, 3, -1, 0), (1, 2, -1, 1)]))
    }

    /// A reduction loop (feature `reduce`): `let mut acc = c; for i in lo..hi { let t = ..;
    /// if .. { acc += .. } else { acc -= .. } acc += t * ..; }`, with a `break` or
    /// `continue` for a branch at times, and arrays read at offsets of `i` (feature
    /// `neighbours`): diff runs such a loop's pullback in its forward pass
    /// (`fused_loops.rs`) when the sum is the only value it carries with a derivative.
    pub(super) fn reduce(&mut self) -> Option<Vec<Stmt>> {
        let (acc, i) = (self.fresh("acc"), self.fresh("i"));
        let window = self.window(0.6);
        let (lo, hi) = match window {
            Some((lo, hi, _, _)) => (lo, hi),
            None => (0, self.rng.range(1, 4) as u32),
        };
        self.nest += 1;
        self.scopes.push(Vec::new());
        self.declare(&i, Ty::I, false);
        if let Some((_, _, low, high)) = window {
            self.windows.push((i.clone(), low, high));
        }
        self.loops.push(LoopInfo {
            label: None,
            value: false,
        });
        let add = |g: &mut Self, op: BinOp| Stmt::Assign {
            place: Place::Var(acc.clone()),
            op: Some(op),
            rhs: g.assign_rhs(Some(op)),
        };
        let mut body = self.let_f();
        let t = match &body[0] {
            Stmt::Let { name, .. } => name.clone(),
            _ => unreachable!("let_f gives a let"),
        };
        let arms = (0..self.rng.range(1, 2))
            .map(|_| {
                let c = self.cond();
                let op = *self.rng.pick(&[BinOp::Add, BinOp::Sub]);
                (c, vec![add(self, op)])
            })
            .collect();
        let els = match self.rng.below(5) {
            0 if self.on("breakcont") => Some(vec![Stmt::Break(None)]),
            1 if self.on("breakcont") => Some(vec![Stmt::Continue]),
            2 => None,
            _ => Some(vec![add(self, BinOp::Sub)]),
        };
        body.push(Stmt::If { arms, els });
        let factor = self.factor();
        body.push(Stmt::Assign {
            place: Place::Var(acc.clone()),
            op: Some(BinOp::Add),
            rhs: bin(BinOp::Mul, place(Place::Var(t)), factor),
        });
        self.loops.pop();
        if window.is_some() {
            self.windows.pop();
        }
        self.scopes.pop();
        self.nest -= 1;
        let init = lit(self.literal());
        self.declare(&acc, Ty::F, true);
        Some(vec![
            Stmt::Let {
                name: acc,
                mutable: true,
                ty: Ty::F,
                annotate: true,
                init: Init::F(init),
            },
            Stmt::For {
                var: Some(i),
                range: Range::Excl(IExpr::Lit(lo), IExpr::Lit(hi)),
                body,
                label: None,
            },
        ])
    }

    /// A loop (for, while or loop) around `body`, which is generated inside it.
    pub(super) fn looped(
        &mut self,
        body: impl FnOnce(&mut Self) -> Vec<Stmt>,
    ) -> Option<Vec<Stmt>> {
        let mut kinds = Vec::new();
        for (k, f) in ["for", "while", "loop"].iter().enumerate() {
            if self.on(f) {
                kinds.push(k);
            }
        }
        let kind = *self.rng.pick(&kinds);
        let label = if self.on("label") && self.rng.chance(0.3) {
            Some(self.fresh("'l"))
        } else {
            None
        };
        let count = self.rng.range(1, 4) as u32;
        let ints = self.int_vars();
        let n_var = ints.iter().find(|n| n.as_str() == "n").cloned();
        let limit = match &n_var {
            Some(n) if self.rng.chance(0.3) => IExpr::Var(n.clone()),
            _ => IExpr::Lit(count),
        };
        let mut pre = Vec::new();
        self.nest += 1;
        let stmt = if kind == 0 {
            let var_name = if self.rng.chance(0.7) {
                Some(self.fresh("i"))
            } else {
                None
            };
            let window = if var_name.is_some() {
                self.window(0.35)
            } else {
                None
            };
            let range = if let Some((lo, hi, _, _)) = window {
                Range::Excl(IExpr::Lit(lo), IExpr::Lit(hi))
            } else if self.on("ranges") && self.rng.chance(0.3) {
                match self.rng.below(3) {
                    0 => Range::Incl(0, count - 1),
                    1 => Range::Rev(IExpr::Lit(0), limit),
                    _ => Range::StepBy(IExpr::Lit(0), IExpr::Lit(count + 2), 2),
                }
            } else {
                Range::Excl(IExpr::Lit(0), limit)
            };
            self.scopes.push(Vec::new());
            if let Some(v) = &var_name {
                self.declare(v, Ty::I, false);
            }
            if let (Some(v), Some((_, _, low, high))) = (&var_name, window) {
                self.windows.push((v.clone(), low, high));
            }
            self.loops.push(LoopInfo {
                label: label.clone(),
                value: false,
            });
            let mut b = body(self);
            b.extend(self.sink_locals());
            self.loops.pop();
            if window.is_some() {
                self.windows.pop();
            }
            self.scopes.pop();
            Stmt::For {
                var: var_name,
                range,
                body: b,
                label,
            }
        } else {
            let k = self.fresh("k");
            pre.push(Stmt::Let {
                name: k.clone(),
                mutable: true,
                ty: Ty::I,
                annotate: false,
                init: Init::I(IExpr::Lit(0)),
            });
            self.declare(&k, Ty::I, false);
            self.scopes.push(Vec::new());
            self.loops.push(LoopInfo {
                label: label.clone(),
                value: false,
            });
            let mut b = vec![Stmt::Incr(k.clone())];
            if kind == 2 {
                b.push(Stmt::If {
                    arms: vec![(
                        Cond::I(IExpr::Var(k.clone()), CmpOp::Gt, limit.clone()),
                        vec![Stmt::Break(None)],
                    )],
                    els: None,
                });
            }
            b.extend(body(self));
            b.extend(self.sink_locals());
            self.loops.pop();
            self.scopes.pop();
            if kind == 1 {
                let counted = Cond::I(IExpr::Var(k), CmpOp::Lt, limit);
                // Sometimes also a condition on active values (the counter still ends it).
                let cond = if self.rng.chance(0.25) {
                    let c = self.cond();
                    Cond::And(Box::new(counted), Box::new(c))
                } else {
                    counted
                };
                Stmt::While {
                    cond,
                    body: b,
                    label,
                }
            } else {
                Stmt::Loop { body: b, label }
            }
        };
        self.nest -= 1;
        pre.push(stmt);
        Some(pre)
    }

    /// `let mut c = x0; let mut c_prev = x0;` and a loop rotating them.
    pub(super) fn carried(&mut self) -> Option<Vec<Stmt>> {
        let init = self.read_place()?;
        let cur = self.fresh("c");
        let prev = format!("{cur}_prev");
        let acc = if self.rng.chance(0.4) {
            Some(format!("{cur}_acc"))
        } else {
            None
        };
        let mut out = Vec::new();
        for n in std::iter::once(&cur).chain([&prev]).chain(acc.iter()) {
            out.push(Stmt::Let {
                name: n.clone(),
                mutable: true,
                ty: Ty::F,
                annotate: false,
                init: Init::F(place(init.clone())),
            });
            self.declare(n, Ty::F, true);
        }
        let (cur2, prev2, acc2) = (cur.clone(), prev.clone(), acc.clone());
        let body = move |g: &mut Self| {
            let mut b = Vec::new();
            let next = g.fresh("next");
            let a = *g.rng.pick(&[0.5, 0.6, 0.3]);
            let c = *g.rng.pick(&[0.4, 0.3, 0.2]);
            let other = if g.rng.chance(0.5) {
                let m = *g.rng.pick(&[Math::Sin, Math::Tanh, Math::Cos]);
                math(m, place(var(&prev2)))
            } else {
                place(var(&prev2))
            };
            let (extra, _) = g.bounded(1, 0.5);
            let e = bin(
                BinOp::Add,
                bin(
                    BinOp::Add,
                    bin(BinOp::Mul, lit(a), place(var(&cur2))),
                    bin(BinOp::Mul, lit(c), other),
                ),
                bin(BinOp::Mul, lit(0.1), extra),
            );
            b.push(Stmt::Let {
                name: next.clone(),
                mutable: false,
                ty: Ty::F,
                annotate: false,
                init: Init::F(e),
            });
            if let Some(acc) = &acc2 {
                b.push(Stmt::Assign {
                    place: var(acc),
                    op: Some(BinOp::Add),
                    rhs: bin(BinOp::Mul, place(var(&cur2)), lit(0.5)),
                });
            }
            b.push(Stmt::Assign {
                place: var(&prev2),
                op: None,
                rhs: place(var(&cur2)),
            });
            b.push(Stmt::Assign {
                place: var(&cur2),
                op: None,
                rhs: place(var(&next)),
            });
            // Other statements after the rotation, where a shadowing `let` of the carried
            // variables cannot hide them from it.
            if g.rng.chance(0.5) {
                b.extend(g.stmts(1));
            }
            b
        };
        out.extend(self.looped(body)?);
        Some(out)
    }

    /// Two distinct places, both writable; `disjoint`: they may be borrowed `&mut` at once.
    pub(super) fn two_places(&mut self, disjoint: bool) -> Option<(Place, Place)> {
        for _ in 0..6 {
            let p = self.write_place()?;
            let q = self.write_place()?;
            if p == q {
                continue;
            }
            if !disjoint {
                return Some((p, q));
            }
            if self.borrowable(&p) && self.borrowable(&q) && self.disjoint(&p, &q) {
                return Some((p, q));
            }
        }
        None
    }

    /// Whether `&mut p` may be generated under the features.
    pub(super) fn borrowable(&self, p: &Place) -> bool {
        match p {
            Place::Var(_) | Place::Deref(_) => self.on("mutref"),
            Place::Field(..) | Place::Elem(..) | Place::SelfField(_) => self.on("mutfield"),
        }
    }

    pub(super) fn disjoint(&self, p: &Place, q: &Place) -> bool {
        if p.root() != q.root() {
            return true;
        }
        match (p, q) {
            (Place::Field(_, a), Place::Field(_, b))
            | (Place::SelfField(a), Place::SelfField(b)) => a != b && self.on("mutpair"),
            _ => false,
        }
    }

    pub(super) fn swap_tmp(&mut self) -> Option<Vec<Stmt>> {
        let (p, q) = self.two_places(false)?;
        let t = self.fresh("t");
        Some(vec![
            Stmt::Let {
                name: t.clone(),
                mutable: false,
                ty: Ty::F,
                annotate: false,
                init: Init::F(place(p.clone())),
            },
            Stmt::Assign {
                place: p,
                op: None,
                rhs: place(q.clone()),
            },
            Stmt::Assign {
                place: q,
                op: None,
                rhs: place(var(&t)),
            },
        ])
    }

    pub(super) fn swap_call(&mut self) -> Option<Vec<Stmt>> {
        let (p, q) = self.two_places(true)?;
        Some(vec![Stmt::Call {
            func: "swap".into(),
            args: vec![Arg::Mut(p), Arg::Mut(q)],
        }])
    }

    /// `p op= { ..assignments..; tail };`
    pub(super) fn block_assign(&mut self) -> Option<Vec<Stmt>> {
        let p = self.write_place()?;
        let op = *self.rng.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul]);
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        let tmp = if self.rng.chance(0.5) {
            let t = self.fresh("t");
            stmts.push(Stmt::Let {
                name: t.clone(),
                mutable: false,
                ty: Ty::F,
                annotate: false,
                init: Init::F(place(p.clone())),
            });
            self.declare(&t, Ty::F, false);
            Some(t)
        } else {
            None
        };
        let target = if self.rng.chance(0.75) {
            p.clone()
        } else {
            self.write_place()?
        };
        let inner_op = self.assign_op();
        let rhs = self.assign_rhs(inner_op);
        stmts.push(Stmt::Assign {
            place: target,
            op: inner_op,
            rhs,
        });
        let tail = match (&tmp, op) {
            (Some(t), BinOp::Mul) => math(*self.rng.pick(&[Math::Cos, Math::Tanh]), place(var(t))),
            (Some(t), _) => bin(BinOp::Mul, place(var(t)), lit(0.5)),
            (None, BinOp::Mul) => self.factor(),
            (None, _) => self.bounded(2, 1.5).0,
        };
        self.scopes.pop();
        Some(vec![Stmt::Assign {
            place: p,
            op: Some(op),
            rhs: Expr::Block(stmts, Box::new(tail)),
        }])
    }

    /// Arguments for a call with `&mut` parameters: the places, then the values, which
    /// do not read the borrowed locals.
    pub(super) fn mut_args(&mut self, muts: usize, vals: usize) -> Option<Vec<Arg>> {
        let mut places: Vec<Place> = Vec::new();
        for _ in 0..muts {
            let mut found = None;
            for _ in 0..6 {
                let p = self.write_place()?;
                if self.borrowable(&p) && places.iter().all(|q| *q != p && self.disjoint(q, &p)) {
                    found = Some(p);
                    break;
                }
            }
            places.push(found?);
        }
        let saved = self.forbidden.len();
        for p in &places {
            self.forbidden.push(p.root().to_string());
        }
        let mut args: Vec<Arg> = places.into_iter().map(Arg::Mut).collect();
        for _ in 0..vals {
            args.push(Arg::Val(self.bounded(2, 2.0).0));
        }
        self.forbidden.truncate(saved);
        Some(args)
    }

    pub(super) fn mut_call(&mut self) -> Option<Vec<Stmt>> {
        if self.mut_fns.is_empty() {
            return None;
        }
        let sig = self.rng.pick(&self.mut_fns).clone();
        let args = self.mut_args(sig.muts, sig.vals)?;
        if sig.returns && self.rng.chance(0.7) {
            let name = self.fresh("r");
            self.declare(&name, Ty::F, false);
            Some(vec![Stmt::Let {
                name,
                mutable: false,
                ty: Ty::F,
                annotate: false,
                init: Init::F(Expr::Call(sig.name, args)),
            }])
        } else {
            Some(vec![Stmt::Call {
                func: sig.name,
                args,
            }])
        }
    }

    pub(super) fn method_stmt(&mut self) -> Option<Vec<Stmt>> {
        let s = self.pick_mutable_local(&[Ty::S])?;
        let ufcs = self.rng.chance(0.3);
        let saved = self.forbidden.len();
        if ufcs {
            self.forbidden.push(s.name.clone());
        }
        let (k, _) = self.bounded(2, 2.0);
        self.forbidden.truncate(saved);
        Some(vec![Stmt::MutMethod {
            recv: s.name,
            method: "step".into(),
            args: vec![k],
            ufcs,
        }])
    }

    pub(super) fn agg_value(&mut self, ty: Ty, depth: usize) -> Agg {
        let e = |g: &mut Self| g.bounded(depth, 3.0).0;
        match ty {
            Ty::T2 => Agg::Tuple(e(self), e(self)),
            Ty::A3 => {
                if self.rng.chance(0.2) {
                    Agg::Repeat(*self.rng.pick(&[0.0, 1.0, 0.5]))
                } else {
                    Agg::Array(vec![e(self), e(self), e(self)])
                }
            }
            Ty::S => {
                let others = self.vars_of(&[Ty::S], false);
                if !others.is_empty() && self.rng.chance(0.3) {
                    let base = self.rng.pick(&others).name.clone();
                    let f = if self.rng.chance(0.5) { Fld::A } else { Fld::B };
                    Agg::StructUpdate(f, e(self), base)
                } else {
                    Agg::Struct(e(self), e(self))
                }
            }
            _ => unreachable!("not an aggregate"),
        }
    }

    pub(super) fn agg_typed(a: &Agg) -> bool {
        match a {
            Agg::Tuple(x, y) | Agg::Struct(x, y) => typed(x) && typed(y),
            Agg::Array(xs) => xs.iter().all(typed),
            Agg::Repeat(_) => false,
            Agg::StructUpdate(..) | Agg::Copy(_) => true,
        }
    }

    pub(super) fn agg_assign(&mut self) -> Option<Vec<Stmt>> {
        let v = self.pick_mutable_local(&[Ty::T2, Ty::A3, Ty::S])?;
        let same: Vec<Var> = self
            .vars_of(&[v.ty], false)
            .into_iter()
            .filter(|o| o.name != v.name)
            .collect();
        let rhs = if !same.is_empty() && self.rng.chance(0.2) {
            Agg::Copy(self.rng.pick(&same).name.clone())
        } else {
            self.agg_value(v.ty, 2)
        };
        Some(vec![Stmt::AssignAgg { name: v.name, rhs }])
    }

    pub(super) fn let_pattern(&mut self) -> Option<Vec<Stmt>> {
        let vs = self.vars_of(&[Ty::T2, Ty::A3], false);
        if vs.is_empty() {
            return None;
        }
        let v = self.rng.pick(&vs).clone();
        let k = if v.ty == Ty::T2 { 2 } else { 3 };
        let names: Vec<String> = (0..k).map(|_| self.fresh("p")).collect();
        for n in &names {
            self.declare(n, Ty::F, false);
        }
        Some(vec![Stmt::LetPat {
            names,
            from: v.name,
        }])
    }

    pub(super) fn new_state(&mut self) -> Option<Vec<Stmt>> {
        let mut tys = Vec::new();
        if self.on("tuple") {
            tys.push((Ty::T2, "t"));
        }
        if self.on("array") {
            tys.push((Ty::A3, "arr"));
        }
        if self.has_struct {
            tys.push((Ty::S, "s"));
        }
        if self.has_v {
            tys.push((Ty::V, "p"));
        }
        if tys.is_empty() {
            return None;
        }
        let (ty, prefix) = *self.rng.pick(&tys);
        if ty == Ty::V {
            return Some(self.let_v(true));
        }
        let init = self.agg_value(ty, 2);
        let annotate = !Self::agg_typed(&init) || self.rng.chance(0.2);
        let name = self.fresh(prefix);
        self.declare(&name, ty, true);
        Some(vec![Stmt::Let {
            name,
            mutable: true,
            ty,
            annotate,
            init: Init::Agg(init),
        }])
    }

    pub(super) fn break_continue(&mut self) -> Option<Vec<Stmt>> {
        let c = self.cond();
        let inner = self.loops.last().cloned()?;
        let s = if self.rng.chance(0.6) {
            if inner.value {
                Stmt::BreakValue(self.bounded(2, 3.0).0)
            } else {
                let labels: Vec<String> =
                    self.loops.iter().filter_map(|l| l.label.clone()).collect();
                let label = if !labels.is_empty() && self.rng.chance(0.6) {
                    Some(self.rng.pick(&labels).clone())
                } else {
                    None
                };
                if label.is_some() && self.loops.iter().any(|l| l.value) {
                    // A labelled break out of a value loop would need a value.
                    Stmt::Break(None)
                } else {
                    Stmt::Break(label)
                }
            }
        } else {
            Stmt::Continue
        };
        Some(vec![Stmt::If {
            arms: vec![(c, vec![s])],
            els: None,
        }])
    }

    pub(super) fn early_return(&mut self) -> Option<Vec<Stmt>> {
        let c = self.cond();
        let value = match self.ret {
            Ret::F => Some(self.bounded(2, 3.0).0),
            Ret::Unit => None,
        };
        Some(vec![Stmt::If {
            arms: vec![(c, vec![Stmt::Return(value)])],
            els: None,
        }])
    }

    /// An arm's value, sometimes `return e` (only where a return is allowed).
    pub(super) fn arm_value(&mut self) -> Expr {
        if self.ret == Ret::F && self.can_return() && self.on("letreturn") && self.rng.chance(0.2) {
            Expr::Return(Box::new(self.bounded(2, 3.0).0))
        } else {
            self.bounded(2, 3.0).0
        }
    }

    pub(super) fn let_if(&mut self) -> Option<Vec<Stmt>> {
        let n = self.rng.range(1, 2);
        let mut arms = Vec::new();
        self.nest += 1;
        for _ in 0..n {
            let c = self.cond();
            self.scopes.push(Vec::new());
            let body = if self.rng.chance(0.4) {
                self.stmts(1)
            } else {
                Vec::new()
            };
            let v = self.arm_value();
            self.scopes.pop();
            arms.push((c, body, v));
        }
        self.scopes.push(Vec::new());
        let els = if self.rng.chance(0.3) {
            self.stmts(1)
        } else {
            Vec::new()
        };
        let ev = self.bounded(2, 3.0).0;
        self.scopes.pop();
        self.nest -= 1;
        let e = Expr::If(arms, els, Box::new(ev));
        let name = self.fresh("v");
        let annotate = !typed(&e);
        self.declare(&name, Ty::F, false);
        Some(vec![Stmt::Let {
            name,
            mutable: false,
            ty: Ty::F,
            annotate,
            init: Init::F(e),
        }])
    }

    pub(super) fn let_match(&mut self) -> Option<Vec<Stmt>> {
        let scrut = self.scrutinee()?;
        let k = self.rng.range(1, 2) as u32;
        let mut arms = Vec::new();
        for v in 0..=k {
            // The `_` arm gives a value: a `match` of returns only would have type `!`.
            let e = if v < k {
                self.arm_value()
            } else {
                self.bounded(2, 3.0).0
            };
            arms.push((if v < k { Some(v) } else { None }, e));
        }
        let e = Expr::Match(scrut, arms);
        let name = self.fresh("v");
        let annotate = !typed(&e);
        self.declare(&name, Ty::F, false);
        Some(vec![Stmt::Let {
            name,
            mutable: false,
            ty: Ty::F,
            annotate,
            init: Init::F(e),
        }])
    }

    /// `let v = loop { k += 1; if k > K { break e; } .. };`
    pub(super) fn let_loop(&mut self) -> Option<Vec<Stmt>> {
        let k = self.fresh("k");
        let count = self.rng.range(1, 4) as u32;
        let mut out = vec![Stmt::Let {
            name: k.clone(),
            mutable: true,
            ty: Ty::I,
            annotate: false,
            init: Init::I(IExpr::Lit(0)),
        }];
        self.declare(&k, Ty::I, false);
        self.nest += 1;
        self.scopes.push(Vec::new());
        self.loops.push(LoopInfo {
            label: None,
            value: true,
        });
        let mut body = vec![Stmt::Incr(k.clone())];
        let (e, _) = self.bounded(2, 3.0);
        body.push(Stmt::If {
            arms: vec![(
                Cond::I(IExpr::Var(k), CmpOp::Gt, IExpr::Lit(count)),
                vec![Stmt::BreakValue(e)],
            )],
            els: None,
        });
        let n = self.rng.range(1, 3);
        body.extend(self.stmts(n));
        self.loops.pop();
        self.scopes.pop();
        self.nest -= 1;
        let name = self.fresh("v");
        self.declare(&name, Ty::F, false);
        out.push(Stmt::LetLoop { name, body });
        Some(out)
    }
}
