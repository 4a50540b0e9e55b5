//! Activity analysis (docs/ARCHITECTURE.md): a value is *varied* when it
//! depends on a differentiated parameter, *useful* when the result depends on it through
//! differentiable operations, and *active* when both. Only active values get tangents or
//! adjoints; everything else is plain primal code.
use crate::ir::{is_inactive_method, Callee, Function, Inst, RegionId, Value};
use std::collections::BTreeSet;

/// The result of activity analysis.
#[derive(Clone, Debug, Default)]
pub struct Activity {
    /// Values that depend on a differentiated parameter.
    pub varied: BTreeSet<Value>,
    /// Values the result depends on through differentiable operations.
    pub useful: BTreeSet<Value>,
    /// The values that are surely integers (`integers.rs`): never varied.
    pub integers: BTreeSet<Value>,
}

impl Activity {
    /// Whether `v` needs a derivative.
    pub fn is_active(&self, v: Value) -> bool {
        self.varied.contains(&v) && self.useful.contains(&v)
    }

    /// Runs the analysis; `wrt` lists the differentiated parameter indices.
    pub fn analyze(func: &Function, wrt: &[usize]) -> Activity {
        let mut a = Activity::default();
        for stmt in &func.region(func.entry()).stmts {
            if let Inst::Param(i) = stmt.inst {
                if wrt.contains(&i) {
                    a.varied.insert(stmt.results[0]);
                }
            }
        }
        let integers = super::integers::integers(func);
        a.varied_region(func, func.entry(), &integers);
        a.integers = integers;
        a.useful
            .extend(func.region(func.entry()).yields.iter().copied());
        a.useful_region(func, func.entry());
        a
    }

    /// Marks what region `r` varies; an integer (`integers`) never is.
    fn varied_region(&mut self, func: &Function, r: RegionId, integers: &BTreeSet<Value>) {
        for stmt in &func.region(r).stmts {
            let any = |a: &Activity, vs: &[Value]| vs.iter().any(|v| a.varied.contains(v));
            let varied = match &stmt.inst {
                Inst::Param(_) => continue,
                Inst::Const(_) | Inst::NoDerivative(_) => false,
                Inst::Opaque(o) if o.inactive => false,
                Inst::Call(Callee::Method { method, .. }, args)
                    if is_inactive_method(method, args.len().saturating_sub(1)) =>
                {
                    false
                }
                Inst::Index(base, _) => self.varied.contains(base),
                Inst::SetIndex(base, _, v) => self.varied.contains(base) || self.varied.contains(v),
                Inst::If { .. } | Inst::Match { .. } => {
                    let branches = stmt.inst.branches().expect("a branching instruction");
                    for r in &branches {
                        self.varied_region(func, *r, integers);
                    }
                    for (i, res) in stmt.results.iter().enumerate() {
                        if !integers.contains(res)
                            && branches
                                .iter()
                                .any(|r| self.varied.contains(&func.region(*r).yields[i]))
                        {
                            self.varied.insert(*res);
                        }
                    }
                    continue;
                }
                Inst::For { init, body, .. } => {
                    self.varied_loop(func, init, *body, &stmt.results, integers);
                    continue;
                }
                other => any(self, &other.operands()),
            };
            if varied {
                self.varied
                    .extend(stmt.results.iter().filter(|v| !integers.contains(v)));
            }
        }
    }

    /// Loop-carried values are varied when their initial value or the body's yield is:
    /// iterate the body to a fixed point.
    fn varied_loop(
        &mut self,
        func: &Function,
        init: &[Value],
        body: RegionId,
        results: &[Value],
        integers: &BTreeSet<Value>,
    ) {
        let region = func.region(body);
        loop {
            let before = self.varied.len();
            for (i, p) in region.params.iter().take(init.len()).enumerate() {
                let varied =
                    self.varied.contains(&init[i]) || self.varied.contains(&region.yields[i]);
                if varied && !integers.contains(p) {
                    self.varied.insert(*p);
                }
            }
            self.varied_region(func, body, integers);
            if self.varied.len() == before {
                break;
            }
        }
        for (i, r) in results.iter().enumerate() {
            if self.varied.contains(&region.params[i]) {
                self.varied.insert(*r);
            }
        }
    }

    fn useful_region(&mut self, func: &Function, r: RegionId) {
        for stmt in func.region(r).stmts.iter().rev() {
            if !stmt.results.iter().any(|v| self.useful.contains(v)) {
                continue;
            }
            match &stmt.inst {
                Inst::Const(_) | Inst::Param(_) | Inst::NoDerivative(_) => {}
                // A result that never carries a derivative needs none of its operands'.
                Inst::Opaque(o) if o.inactive => {}
                Inst::Call(Callee::Method { method, .. }, args)
                    if is_inactive_method(method, args.len().saturating_sub(1)) => {}
                Inst::Index(base, _) => {
                    self.useful.insert(*base);
                }
                Inst::SetIndex(base, _, v) => {
                    self.useful.insert(*base);
                    self.useful.insert(*v);
                }
                Inst::If { .. } | Inst::Match { .. } => {
                    for sub in stmt.inst.branches().expect("a branching instruction") {
                        let yields = &func.region(sub).yields;
                        for (i, res) in stmt.results.iter().enumerate() {
                            if self.useful.contains(res) {
                                self.useful.insert(yields[i]);
                            }
                        }
                        self.useful_region(func, sub);
                    }
                }
                Inst::For { init, body, .. } => self.useful_loop(func, init, *body, &stmt.results),
                other => self.useful.extend(other.operands()),
            }
        }
    }

    fn useful_loop(&mut self, func: &Function, init: &[Value], body: RegionId, results: &[Value]) {
        let region = func.region(body);
        for (i, r) in results.iter().enumerate() {
            if self.useful.contains(r) {
                self.useful.insert(region.yields[i]);
            }
        }
        loop {
            let before = self.useful.len();
            self.useful_region(func, body);
            for (i, p) in region.params.iter().take(init.len()).enumerate() {
                if self.useful.contains(p) {
                    self.useful.insert(region.yields[i]);
                }
            }
            if self.useful.len() == before {
                break;
            }
        }
        for (i, p) in region.params.iter().take(init.len()).enumerate() {
            // After zero iterations a result is its initial value.
            if self.useful.contains(p) || self.useful.contains(&results[i]) {
                self.useful.insert(init[i]);
            }
        }
    }
}
