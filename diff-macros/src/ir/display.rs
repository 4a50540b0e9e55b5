//! A text printer for the IR, used by tests and when debugging the macro.
use super::{BinOp, Borrow, Callee, Function, Inst, RegionId, Sequence, Value};
use quote::ToTokens;
use std::fmt::{self, Display, Formatter, Write};

impl Display for Value {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

impl Display for BinOp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.method())
    }
}

fn list(vs: &[Value]) -> String {
    vs.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Token text with the spaces `proc_macro2` puts between every token squeezed out.
fn tokens(t: impl ToTokens) -> String {
    t.to_token_stream().to_string().replace(' ', "")
}

impl Inst {
    pub(crate) fn describe(&self) -> String {
        match self {
            Inst::Param(i) => format!("param {i}"),
            Inst::Const(t) => format!("const {}", t.to_string().replace(' ', "")),
            Inst::Opaque(o) => format!("opaque[{}] {}", o.what, list(&o.uses)),
            Inst::Binary(op, a, b) => format!("{op} {a}, {b}"),
            Inst::Neg(a) => format!("neg {a}"),
            Inst::Call(Callee::Path(p), args) => format!("call {}({})", tokens(p), list(args)),
            Inst::Call(Callee::Method { method, .. }, args) => {
                format!("method {method}({})", list(args))
            }
            Inst::Call(Callee::OnTwin { ty, method }, args) => {
                format!("method {}::{method} on a twin ({})", tokens(ty), list(args))
            }
            Inst::Tuple(vs) => format!("tuple ({})", list(vs)),
            Inst::CallMut(_, args, m) => format!("call_mut ({}) mutating {m:?}", list(args)),
            Inst::Load(a) => format!("load {a}"),
            Inst::Struct(p, fs) => format!(
                "struct {} {{{}}}",
                tokens(p),
                fs.iter()
                    .map(|(m, v)| format!("{}: {v}", tokens(m)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Inst::SetField(b, m, v) => format!("set {b}.{} = {v}", tokens(m)),
            Inst::SetIndex(b, i, v) => format!("set {b}[{i}] = {v}"),
            Inst::Array(vs, k) => {
                let k = if *k == Sequence::Vec { "vec" } else { "array" };
                format!("{k} [{}]", list(vs))
            }
            Inst::Field(a, m) => format!("field {a}.{}", tokens(m)),
            Inst::Index(a, i) => format!("index {a}[{i}]"),
            Inst::Ref(a, m) => format!("ref{} {a}", if *m == Borrow::Mut { " mut" } else { "" }),
            Inst::Deref(a) => format!("deref {a}"),
            Inst::NoDerivative(a) => format!("no_derivative {a}"),
            Inst::Nested(n) => format!("{}!(at: {}, of: {})", n.op, n.at, tokens(&n.of)),
            Inst::Cast(a, t) => format!("cast {a} as {}", tokens(t)),
            Inst::If {
                cond,
                then_region,
                else_region,
            } => format!("if {cond} then r{} else r{}", then_region.0, else_region.0),
            Inst::Match { scrutinee, arms } => {
                let rs: Vec<String> = arms.iter().map(|a| format!("r{}", a.region.0)).collect();
                format!("match {scrutinee} arms {}", rs.join(" "))
            }
            Inst::For {
                iter,
                init,
                body,
                stop,
            } => {
                let stop = if *stop { " until stop" } else { "" };
                format!("for {iter} carry ({}) body r{}{stop}", list(init), body.0)
            }
        }
    }
}

impl Function {
    fn write_region(&self, out: &mut String, r: RegionId, depth: usize) {
        let region = self.region(r);
        let pad = "  ".repeat(depth);
        let _ = writeln!(out, "{pad}r{}({}):", r.0, list(&region.params));
        for stmt in &region.stmts {
            let _ = writeln!(
                out,
                "{pad}  {} = {}",
                list(&stmt.results),
                stmt.inst.describe()
            );
            for sub in stmt.inst.regions() {
                self.write_region(out, sub, depth + 2);
            }
        }
        let _ = writeln!(out, "{pad}  yield {}", list(&region.yields));
    }
}

impl Display for Function {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write_region(&mut out, self.entry(), 0);
        f.write_str(&out)
    }
}
