//! The derivative rule of each instruction, written once: how the result's derivative
//! depends linearly on the operands' derivatives, and which primal values that reads.
//!
//! Forward mode (`emit/differential.rs`) applies a rule to the operands' tangents;
//! reverse mode (`emit/pullback.rs`) applies its transpose to the result's adjoint; what
//! a region's linear map saves (`linear_map.rs`) is the union of its rules' reads.
//! Adding an arithmetic operation means adding one [`Partial`] per operand here.
//! See docs/ARCHITECTURE.md, "Linearization".
use crate::analysis::activity::Activity;
use crate::ir::{BinOp, Function, Inst, RegionId, Sequence, Stmt, Value};
use crate::linear_map::{shape_source, Saved};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// A scalar partial derivative `∂y/∂x`, applied to a derivative `x` by multiplication.
/// Being a scalar, it is its own transpose: both modes apply it the same way, through
/// diff-core's `__private::partial` functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partial {
    /// `1`.
    One,
    /// `-1`.
    MinusOne,
    /// `b`, multiplied on the right (`a * b` with respect to `a`).
    Times(Value),
    /// `a`, multiplied on the left (`a * b` with respect to `b`).
    TimesLeft(Value),
    /// `1 / b` (`a / b` with respect to `a`).
    Over(Value),
    /// `-y / b` for `y = a / b` (with respect to `b`).
    MinusRatio(Value, Value),
    /// `-trunc(a / b)` (`a % b` with respect to `b`).
    MinusQuotient(Value, Value),
}

impl Partial {
    /// The primal values the partial reads.
    pub fn reads(self) -> Vec<Value> {
        match self {
            Partial::One | Partial::MinusOne => vec![],
            Partial::Times(b) | Partial::TimesLeft(b) | Partial::Over(b) => vec![b],
            Partial::MinusRatio(y, b) => vec![y, b],
            Partial::MinusQuotient(a, b) => vec![a, b],
        }
    }

    /// The partial applied to the derivative `x`; `name` gives a primal value's local.
    pub fn apply(self, x: TokenStream, name: impl Fn(Value) -> Ident) -> TokenStream {
        let p = quote!(::diff::__private::partial);
        match self {
            Partial::One => x,
            Partial::MinusOne => quote!(#p::neg(#x)),
            Partial::Times(b) => {
                let b = name(b);
                quote!(#p::times(#x, #b))
            }
            Partial::TimesLeft(a) => {
                let a = name(a);
                quote!(#p::times_left(#a, #x))
            }
            Partial::Over(b) => {
                let b = name(b);
                quote!(#p::over(#x, #b))
            }
            Partial::MinusRatio(y, b) => {
                let (y, b) = (name(y), name(b));
                quote!(#p::neg_ratio(#x, #y, #b))
            }
            Partial::MinusQuotient(a, b) => {
                let (a, b) = (name(a), name(b));
                quote!(#p::neg_quotient(#x, #a, #b))
            }
        }
    }
}

/// A part of an aggregate: a field (`s.m`, `t.0`) or an element (`v[i]`).
#[derive(Clone, Copy, Debug)]
pub enum Part<'a> {
    /// A named field or tuple index.
    Field(&'a syn::Member),
    /// An element at an index value.
    Element(Value),
}

/// How an aggregate is built from its parts.
#[derive(Clone, Copy, Debug)]
pub enum Build<'a> {
    /// `(a, b, ..)`.
    Tuple(&'a [Value]),
    /// `[a, b, ..]`.
    Array(&'a [Value]),
    /// `vec![a, b, ..]`.
    Vec(&'a [Value]),
    /// `S { m: v, .. }`.
    Struct(&'a [(syn::Member, Value)]),
}

/// The linearization of one instruction.
#[derive(Clone, Debug)]
pub enum Rule<'a> {
    /// No derivative flows (constants, kept expressions, `no_derivative`).
    Zero,
    /// The function's `i`-th parameter: its tangent is an input of the differential, its
    /// adjoint an output of the pullback.
    Input(usize),
    /// `dy = Σ ∂y/∂x · dx` over scalar partials (arithmetic operators).
    Scalar(Vec<(Value, Partial)>),
    /// `dy = dx`: references, dereferences and loads share their referent's derivative.
    Identity(Value),
    /// `dy = dx as F`; transposed, the adjoint is converted back to the operand's type.
    Cast(Value, &'a syn::Type),
    /// `y = base.part`: `dy = d(base).part`; transposed, `d(base).part += s`.
    Read(Value, Part<'a>),
    /// `y = base` with `part` replaced by `value`: `dy = d(base)` with the part replaced
    /// by `d(value)`; transposed, the part goes to `value` and the rest to `base`.
    Write(Value, Part<'a>, Value),
    /// `y` built from parts: `dy` built from the parts' derivatives; transposed, taken
    /// apart into them.
    Build(Build<'a>),
    /// A call: the callee's own linear map (its differential or pullback), saved by the
    /// primal.
    Call(&'a [Value]),
    /// A nested operator `y = op(f)(x)` (a gradient, or a scalar derivative): `dy` is the
    /// second derivative applied to `dx`, the operator run at `x + ε·dx` in dual numbers;
    /// transposed the same (a Hessian is symmetric).
    Nested(&'a crate::ir::Nested),
    /// A call mutating `&mut` arguments: the results after the first are their new
    /// values, and the callee's linear map takes and gives their derivatives too.
    CallMut(&'a [Value]),
    /// `if` / `match`: the taken region's linear map, chosen by a predecessor enum.
    Branch(Vec<RegionId>),
    /// A loop: each iteration's linear map, on a tape.
    Loop {
        /// The initial carried values.
        init: &'a [Value],
        /// The body region.
        body: RegionId,
    },
}

impl<'a> Rule<'a> {
    /// The rule of a statement defining `res` (its first result) by `inst`. Only
    /// statements with an active result are linearized, so `res` exists.
    pub fn of(inst: &'a Inst, res: Value) -> Rule<'a> {
        use Partial::*;
        match inst {
            Inst::Param(i) => Rule::Input(*i),
            Inst::Const(_) | Inst::Opaque(_) | Inst::NoDerivative(_) => Rule::Zero,
            Inst::Binary(op, a, b) => Rule::Scalar(match op {
                BinOp::Add => vec![(*a, One), (*b, One)],
                BinOp::Sub => vec![(*a, One), (*b, MinusOne)],
                BinOp::Mul => vec![(*a, Times(*b)), (*b, TimesLeft(*a))],
                BinOp::Div => vec![(*a, Over(*b)), (*b, MinusRatio(res, *b))],
                BinOp::Rem => vec![(*a, One), (*b, MinusQuotient(*a, *b))],
            }),
            Inst::Neg(a) => Rule::Scalar(vec![(*a, MinusOne)]),
            Inst::Ref(a, _) | Inst::Deref(a) | Inst::Load(a) => Rule::Identity(*a),
            Inst::Cast(a, ty) => Rule::Cast(*a, ty),
            Inst::Field(base, m) => Rule::Read(*base, Part::Field(m)),
            Inst::Index(base, i) => Rule::Read(*base, Part::Element(*i)),
            Inst::SetField(base, m, v) => Rule::Write(*base, Part::Field(m), *v),
            Inst::SetIndex(base, i, v) => Rule::Write(*base, Part::Element(*i), *v),
            Inst::Tuple(vs) => Rule::Build(Build::Tuple(vs)),
            Inst::Array(vs, Sequence::Array) => Rule::Build(Build::Array(vs)),
            Inst::Array(vs, Sequence::Vec) => Rule::Build(Build::Vec(vs)),
            Inst::Struct(_, fields) => Rule::Build(Build::Struct(fields)),
            Inst::Call(_, args) => Rule::Call(args),
            Inst::Nested(n) => Rule::Nested(n),
            Inst::CallMut(_, args, _) => Rule::CallMut(args),
            Inst::If { .. } | Inst::Match { .. } => {
                Rule::Branch(inst.branches().expect("a branching instruction"))
            }
            Inst::For { init, body, .. } => Rule::Loop { init, body: *body },
        }
    }

    /// What the rule of `stmt` reads from the primal, in either mode, given which
    /// operands are active: the linear map saves exactly these.
    pub fn reads(&self, func: &Function, stmt: &Stmt, act: &Activity) -> Vec<Saved> {
        let mut out: Vec<Saved> = Vec::new();
        for read in self.all_reads(func, stmt, act) {
            if !out.contains(&read) {
                out.push(read);
            }
        }
        out
    }

    fn all_reads(&self, func: &Function, stmt: &Stmt, act: &Activity) -> Vec<Saved> {
        let Some(&res) = stmt.results.first() else {
            return vec![];
        };
        match self {
            Rule::Zero | Rule::Input(_) | Rule::Identity(_) => vec![],
            Rule::Scalar(terms) => terms
                .iter()
                .filter(|(x, _)| act.is_active(*x))
                .flat_map(|(_, p)| p.reads())
                .map(Saved::Value)
                .collect(),
            // Reverse mode converts the adjoint back to the operand's type.
            Rule::Cast(a, _) => vec![Saved::Value(*a)],
            // The base's derivative is built from a zero of its type (a field) or shape
            // (an element) when only the part is active.
            Rule::Read(base, Part::Field(_)) => vec![Saved::Marker(*base)],
            // Shapes are taken where the collection is made (see `shape_source`).
            Rule::Read(base, Part::Element(i)) => {
                vec![Saved::Shape(shape_source(func, *base)), Saved::Value(*i)]
            }
            Rule::Write(_, Part::Field(_), _) => vec![Saved::Marker(res)],
            Rule::Write(_, Part::Element(i), _) => {
                vec![Saved::Value(*i), Saved::Shape(shape_source(func, res))]
            }
            Rule::Build(Build::Tuple(_) | Build::Struct(_)) => vec![Saved::Marker(res)],
            Rule::Build(Build::Array(_) | Build::Vec(_)) => vec![],
            Rule::Call(_) => vec![Saved::Callee(res)],
            // (Inactive captures too: the derivatives run the closure, which reads them.)
            Rule::Nested(n) => std::iter::once(n.at)
                .chain(n.captures.iter().map(|c| c.kept))
                .map(Saved::Value)
                .collect(),
            // The values a call updates are typed by their markers where their tangents
            // are converted (an array updated through a `&mut [T]` parameter).
            Rule::CallMut(_) => std::iter::once(Saved::Callee(res))
                .chain(stmt.results[1..].iter().map(|r| Saved::Marker(*r)))
                .collect(),
            Rule::Branch(regions) => vec![Saved::Pred(regions[0])],
            Rule::Loop { init, body } => {
                // A carried value with no tangent before the loop (forward) or no adjoint
                // after it (reverse) starts from an empty slot, typed by its initial
                // value's marker.
                let params = &func.region(*body).params;
                let mut out = vec![Saved::Tape(*body)];
                out.extend(
                    (0..init.len())
                        .filter(|i| {
                            let after = act.is_active(stmt.results[*i]);
                            let carried = after || act.is_active(params[*i]);
                            carried && !(after && act.is_active(init[*i]))
                        })
                        .map(|i| Saved::Marker(init[i])),
                );
                out
            }
        }
    }
}

/// The rule of `stmt`, when it defines a value.
pub fn rule(stmt: &Stmt) -> Option<Rule<'_>> {
    Some(Rule::of(&stmt.inst, *stmt.results.first()?))
}
