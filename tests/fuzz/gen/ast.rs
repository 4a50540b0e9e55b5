//! The generated programs: a small typed subset of Rust, rendered twice (over `f64` for the
//! macro, over the oracle's dual numbers for the reference).

/// The types of locals.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    /// `f64` (`D` in the oracle).
    F,
    /// An integer: loop variables, counters, the inactive `n`.
    I,
    /// `(f64, f64)`.
    T2,
    /// `[f64; 3]`.
    A3,
    /// The generated struct `S { a: f64, b: f64 }`.
    S,
    /// The struct `V { x: f64, y: f64 }` with arithmetic operators of its own.
    V,
    /// A `&mut f64` parameter, read and written as `*p`.
    RefF,
    /// `self` in a `&mut self` method.
    SelfMut,
    /// `self` in a `&self` method.
    SelfRef,
    /// A chunk `&mut [f64]` of a `chunks_mut(2)` loop, read and written as `c[0]`.
    Chunk,
}

/// A field of a tuple, of `S` or of `V`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fld {
    T0,
    T1,
    A,
    B,
    X,
    Y,
}

/// Integer expressions (never differentiated).
#[derive(Clone, PartialEq, Debug)]
pub enum IExpr {
    Var(String),
    Lit(u32),
    Add(Box<IExpr>, u32),
    /// `i - k` (a loop's index whose range keeps it at least `k`).
    Sub(Box<IExpr>, u32),
    Mod(Box<IExpr>, u32),
}

/// A place holding an `f64`.
#[derive(Clone, PartialEq, Debug)]
pub enum Place {
    Var(String),
    Field(String, Fld),
    Elem(String, IExpr),
    Deref(String),
    SelfField(Fld),
}

impl Place {
    /// The local the place belongs to (`self` for `self.a`).
    pub fn root(&self) -> &str {
        match self {
            Place::Var(n) | Place::Field(n, _) | Place::Elem(n, _) | Place::Deref(n) => n,
            Place::SelfField(_) => "self",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Math {
    Sin,
    Cos,
    Tanh,
    Exp,
    Sqrt,
    Powi2,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CmpOp {
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Debug)]
pub enum Cond {
    /// A comparison of two active values (`x > 0.3`).
    F(Expr, CmpOp, Expr),
    /// A comparison of integers (`i % 2 == 0`).
    I(IExpr, CmpOp, IExpr),
    And(Box<Cond>, Box<Cond>),
}

/// An argument of a call.
#[derive(Clone, Debug)]
pub enum Arg {
    Val(Expr),
    Mut(Place),
    /// A `V` by value.
    V(VExpr),
}

/// `f64` expressions.
#[derive(Clone, Debug)]
pub enum Expr {
    Lit(f64),
    Place(Place),
    IntAsF(IExpr),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Math(Math, Box<Expr>),
    /// A call of a free function.
    Call(String, Vec<Arg>),
    /// `recv.method(args)` (`ufcs`: `S::method(&recv, args)`) of a `&self` method.
    MethodCall {
        recv: String,
        method: String,
        args: Vec<Expr>,
        ufcs: bool,
    },
    /// `{ stmts; tail }`.
    Block(Vec<Stmt>, Box<Expr>),
    /// `if c { .. } else if .. { .. } else { .. }`, each arm a block with a tail.
    If(Vec<(Cond, Vec<Stmt>, Expr)>, Vec<Stmt>, Box<Expr>),
    /// `match scrut { 0 => .., 1 => .., _ => .. }`; `None` is the `_` arm.
    Match(IExpr, Vec<(Option<u32>, Expr)>),
    /// `return e` as the value of a match arm (type `!`).
    Return(Box<Expr>),
    /// An element selected from three, or an `Option` taken apart (see [`Select`]).
    Select(Select, Vec<Expr>),
    /// A field of a `V` value: `v.x`, `(p + q).y`, `V::new(a, b).x`.
    VField(Box<VExpr>, Fld),
    /// `p.dot(q)`.
    Dot(Box<VExpr>, Box<VExpr>),
    /// An iterator chain over the array `[e0, e1, e2]` (see [`IterKind`]).
    Iter(IterKind, Vec<Expr>),
}

/// The chain of an [`Expr::Iter`] over `it_a = [e0, e1, e2]` (feature `iter`).
#[derive(Clone, Copy, Debug)]
pub enum IterKind {
    /// `it_a.iter().map(|v| v * v).sum::<f64>()`.
    SumSquares,
    /// `it_a.iter().zip(it_a.iter().rev()).map(|(p, q)| p * q).sum::<f64>()`.
    ZipRev,
    /// `it_a.iter().enumerate().map(|(i, v)| (i as f64 + 1.0) * v).sum::<f64>()`.
    Enumerate,
    /// `it_a.iter().fold(0.0, |acc, v| acc * 0.5 + v)`.
    Fold,
    /// `it_a.iter().rev().skip(1).map(|v| v.sin()).product::<f64>()`.
    RevSkipProduct,
    /// `it_a.iter().filter(|v| **v > 0.0).map(|v| v * 2.0).sum::<f64>()`.
    Filter,
    /// `it_a.windows(2).map(|w| w[1] - w[0]).map(|d| d * d).sum::<f64>()`.
    Windows,
    /// `{ let it_v: Vec<f64> = it_a.iter().map(|v| v.tanh()).collect(); it_v[0] * it_v[2] + it_v[1] }`.
    Collect,
    /// `it_a.iter().chain(it_a[1..].iter()).map(|v| v * 0.5).sum::<f64>()`.
    Chain,
    /// `it_a.iter().position(|v| *v > 0.0).map_or(0.0, |k| it_a[k] * 2.0)`.
    Position,
    /// `it_a.map(|v| v * 3.0)[1]`.
    ArrayMap,
    /// `for v in it_a.iter().step_by(2) { s += v * v }`, as a block.
    StepByLoop,
    /// `it_a.iter().take_while(|v| **v < 1.0).map(|v| v * v).sum::<f64>()`.
    TakeWhile,
    /// `it_a.iter().filter_map(|v| if *v > 0.0 { Some(v * 1.5) } else { None }).sum::<f64>()`.
    FilterMap,
    /// `it_a.iter().copied().filter_map(|v| (v < 0.5).then(|| v.cos())).fold(1.0, |s, t| s * t)`.
    FilterMapThen,
    /// `it_a.iter().skip_while(|v| **v < 0.0).map(|v| v.tanh()).sum::<f64>()`.
    SkipWhile,
}

/// A binary operator between two `V` values.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VOp {
    Add,
    Sub,
    /// Componentwise (`impl Mul for V`): not a scaling, so the float rules would be wrong.
    Mul,
}

/// Expressions of type `V` (feature `ops`): each operator calls an `impl` of the program.
#[derive(Clone, Debug)]
pub enum VExpr {
    Var(String),
    /// `V { x: a, y: b }`.
    Lit(Expr, Expr),
    /// `V::new(a, b)`.
    New(Expr, Expr),
    /// `vmake(a, b)`, a free function returning `V`.
    Make(Expr, Expr),
    Bin(VOp, Box<VExpr>, Box<VExpr>),
    /// `p * k`.
    Scale(Box<VExpr>, Expr),
    /// `k * p` (`impl Mul<V> for f64`).
    ScaleLeft(Expr, Box<VExpr>),
    /// `p / d`.
    Div(Box<VExpr>, Expr),
    Neg(Box<VExpr>),
    /// `p.squashed()`, a method returning `V` (componentwise `tanh` and `sin`).
    Squashed(Box<VExpr>),
    /// `if c { p } else { q }`.
    If(Cond, Box<VExpr>, Box<VExpr>),
}

/// An assignment to a `V` local.
#[derive(Clone, Debug)]
pub enum VAssign {
    /// `p = e;`
    Set(VExpr),
    /// `p += e;`
    Add(VExpr),
    /// `p -= e;`
    Sub(VExpr),
    /// `p *= k;`
    Scale(Expr),
}

/// How [`Expr::Select`] picks among its expressions `[e0, e1, e2]`.
#[derive(Clone, Copy, Debug)]
pub enum Select {
    /// `[e0, e1, e2].iter().copied().fold(f64::NEG_INFINITY, f64::max)`.
    MaxFold,
    /// `*[e0, e1, e2].iter().min_by(|a: &&f64, b: &&f64| a.total_cmp(b)).unwrap()` (typed: the
    /// elements may all be literals).
    MinBy,
    /// `[e0, e1, e2].iter().copied().max_by(f64::total_cmp).unwrap()`.
    MaxBy,
    /// `match (if e0 < e1 { Some(e0) } else { None }) { Some(w) => w * e2, None => e1 }`.
    Option,
}

/// Aggregate values.
#[derive(Clone, Debug)]
pub enum Agg {
    Tuple(Expr, Expr),
    Array(Vec<Expr>),
    /// `[c; 3]`.
    Repeat(f64),
    Struct(Expr, Expr),
    /// `S { a: e, ..base }`.
    StructUpdate(Fld, Expr, String),
    /// A copy of another local.
    Copy(String),
}

#[derive(Clone, Debug)]
pub enum Init {
    F(Expr),
    I(IExpr),
    Agg(Agg),
    V(VExpr),
}

#[derive(Clone, Debug)]
pub enum Range {
    /// `lo..hi`
    Excl(IExpr, IExpr),
    /// `lo..=hi`
    Incl(u32, u32),
    /// `(lo..hi).rev()`
    Rev(IExpr, IExpr),
    /// `(lo..hi).step_by(k)`
    StepBy(IExpr, IExpr, u32),
    /// The items of an array written in place (feature `itermut`), as written in both
    /// renderings: `arr.iter_mut().enumerate()`, `arr[1..].iter_mut()`, `&mut arr`,
    /// `b.iter().zip(arr.iter_mut())`, `arr.chunks_mut(2)`, ..; the loop's `var` is its
    /// pattern (`(j, q)`).
    Items(String),
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Let {
        name: String,
        mutable: bool,
        ty: Ty,
        annotate: bool,
        init: Init,
    },
    /// `let (p, q) = t;` or `let [a, b, c] = arr;`
    LetPat {
        names: Vec<String>,
        from: String,
    },
    Assign {
        place: Place,
        op: Option<BinOp>,
        rhs: Expr,
    },
    /// `t = (..);`, `arr = [..];`, `s = S { .. };`
    AssignAgg {
        name: String,
        rhs: Agg,
    },
    /// `p = e;`, `p += e;`, `p *= k;` of a `V` local.
    AssignV {
        name: String,
        op: VAssign,
    },
    /// `k += 1;`
    Incr(String),
    /// A call for its effect on `&mut` arguments.
    Call {
        func: String,
        args: Vec<Arg>,
    },
    /// `view.op;`: a slice method updating an array local in place, through the local
    /// or a view of it (`arr.reverse()`, `arr.as_mut_slice().swap(0, 2)`,
    /// `(&mut arr[..]).rotate_left(1)`, `arr[1..].reverse()`).
    SliceOp {
        view: String,
        op: String,
    },
    /// `recv.method(args);` or `S::method(&mut recv, args);` (`&mut self` method).
    MutMethod {
        recv: String,
        method: String,
        args: Vec<Expr>,
        ufcs: bool,
    },
    If {
        arms: Vec<(Cond, Vec<Stmt>)>,
        els: Option<Vec<Stmt>>,
    },
    Match {
        scrut: IExpr,
        arms: Vec<(Option<u32>, Vec<Stmt>)>,
    },
    For {
        var: Option<String>,
        range: Range,
        body: Vec<Stmt>,
        label: Option<String>,
    },
    While {
        cond: Cond,
        body: Vec<Stmt>,
        label: Option<String>,
    },
    Loop {
        body: Vec<Stmt>,
        label: Option<String>,
    },
    /// `let name = loop { .. break value; .. };` (the body's `BreakValue`s give the value).
    LetLoop {
        name: String,
        body: Vec<Stmt>,
    },
    Block(Vec<Stmt>),
    Break(Option<String>),
    BreakValue(Expr),
    Continue,
    Return(Option<Expr>),
}

/// A parameter's type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PTy {
    F,
    MutF,
    Usize,
    V,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: PTy,
    pub mutable: bool,
}

/// The receiver of a method.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Recv {
    None,
    Ref,
    Mut,
}

#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    pub recv: Recv,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    /// The returned value; `None`: returns `()`.
    pub tail: Option<Expr>,
}

/// One point at which `check` compares: the inputs and the value of `n`.
#[derive(Clone, Debug)]
pub struct Point {
    pub xs: Vec<f64>,
    pub n: u32,
}

#[derive(Clone, Debug)]
pub struct Program {
    pub seed: u64,
    pub index: usize,
    /// Whether the struct `S` and its methods are part of the program.
    pub has_struct: bool,
    /// Whether the struct `V` with its operators is part of the program (feature `ops`).
    pub has_v: bool,
    /// Whether `#[differentiable]` marks `V`'s operator `impl` blocks rather than their
    /// methods.
    pub v_block_attr: bool,
    /// Whether the `[f64; 3]` state is rendered as `Vec<f64>` (feature `vec`).
    pub vecs: bool,
    /// Methods of `S`.
    pub methods: Vec<Func>,
    /// Free functions, the tested function `f` last.
    pub fns: Vec<Func>,
    pub points: Vec<Point>,
    /// How the operators are called: with a path (`of: f`, `n` in `at:`) or a closure.
    pub reverse_by_path: bool,
    pub forward_by_path: bool,
    /// Whether second order is checked (feature `second`).
    pub second: bool,
}

impl Program {
    /// The tested function.
    pub fn f(&self) -> &Func {
        self.fns.last().expect("f is generated")
    }
}
