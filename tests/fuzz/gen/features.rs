//! The program features, each of which can be turned off (`DIFF_FUZZ_FEATURES=-swap,-struct`)
//! or, for the ones off by default, on (`+retloop`).

/// `(name, on by default, what it generates)`.
pub const FEATURES: &[(&str, bool, &str)] = &[
    (
        "second",
        true,
        "second order: `second_derivative!` / `hessian!` against a hyper-dual oracle",
    ),
    ("shadow", true, "`let x = x * 2.0;`, also in inner blocks"),
    ("alias", true, "`let b = a;`"),
    ("mutcopy", true, "`let mut c = a; c += ..;` then both used"),
    (
        "carried",
        true,
        "loop-carried variables with equal initial values",
    ),
    (
        "swap",
        true,
        "swaps through a temporary and through `swap(&mut a, &mut b)`",
    ),
    ("blockassign", true, "`g += { g += x; x * x };`"),
    (
        "mutref",
        true,
        "`&mut local` passed to differentiable helpers",
    ),
    (
        "mutfield",
        true,
        "`&mut t.0`, `&mut s.a`, `&mut arr[1]` passed to helpers",
    ),
    (
        "mutpair",
        true,
        "two `&mut` of different fields of one local in one call",
    ),
    (
        "struct",
        true,
        "`struct S { a, b }` with `&mut self` and `&self` methods",
    ),
    (
        "ops",
        true,
        "`struct V { x, y }` with `impl Add/Sub/Mul/Mul<f64>/Div<f64>/Neg for V` and `Mul<V> for f64`",
    ),
    ("tuple", true, "`(f64, f64)` state"),
    ("array", true, "`[f64; 3]` state"),
    (
        "vec",
        false,
        "the `[f64; 3]` state as `Vec<f64>` (element writes in place, copies cloned)",
    ),
    ("if", true, "`if` / `else if` / `else` statements"),
    ("ifexpr", true, "`let v = if c { .. } else { .. };`"),
    ("match", true, "`match i % 3 { .. }`"),
    ("for", true, "`for` over ranges"),
    (
        "reduce",
        true,
        "`let mut acc = c; for i in .. { let t = ..; if .. { acc += .. } else { acc -= .. } acc += t * .. }`",
    ),
    (
        "neighbours",
        true,
        "`a[i + 1]`, `a[i - 1]` in `for` loops whose range keeps them in bounds",
    ),
    ("ranges", true, "`..=`, `.rev()`, `.step_by(k)` ranges"),
    ("while", true, "`while` with a counter"),
    ("loop", true, "`loop` with `break`"),
    ("nested", true, "nested loops"),
    ("breakcont", true, "`break` / `continue` inside loops"),
    ("return", true, "early `return` outside loops"),
    (
        "letreturn",
        true,
        "`return` as a match or if arm of a `let` initializer",
    ),
    ("calls", true, "calls of pure differentiable helpers"),
    ("n", true, "an inactive `n: usize` parameter"),
    ("mutparam", true, "`mut x: f64` parameters"),
    (
        "select",
        true,
        "`fold(f64::NEG_INFINITY, f64::max)`, `min_by`/`max_by` + `unwrap`, `match` of an `Option`",
    ),
    ("retloop", true, "`return` inside loops"),
    (
        "views",
        true,
        "slice methods updating an array in place, through views (`arr.as_mut_slice().reverse()`, `(&mut arr[..]).rotate_left(1)`)",
    ),
    (
        "itermut",
        true,
        "`for` loops writing an array through its items: `iter_mut()` (also `&mut a`, a sub-slice, `rev`, `skip`, `step_by`, `enumerate`, `zip`) and `chunks_mut(2)`",
    ),
    ("label", true, "labelled loops and `break 'outer`"),
    ("breakval", true, "`let v = loop { .. break e; };`"),
    (
        "iter",
        true,
        "iterator chains over `[e0, e1, e2]`: map/sum, zip, enumerate, fold, rev/skip/product, filter, windows, collect, chain, position/map_or, array map, step_by loops",
    ),
];

#[derive(Clone, Debug)]
pub struct Features {
    on: Vec<bool>,
}

impl Features {
    /// The defaults changed by a comma list such as `-struct,+retloop` (a bare name is `+`).
    pub fn parse(spec: &str) -> Result<Features, String> {
        let mut on: Vec<bool> = FEATURES.iter().map(|f| f.1).collect();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (value, name) = match item.strip_prefix('-') {
                Some(n) => (false, n),
                None => (true, item.strip_prefix('+').unwrap_or(item)),
            };
            if name == "all" {
                on.iter_mut().for_each(|o| *o = value);
                continue;
            }
            match FEATURES.iter().position(|f| f.0 == name) {
                Some(i) => on[i] = value,
                None => {
                    let names: Vec<&str> = FEATURES.iter().map(|f| f.0).collect();
                    return Err(format!(
                        "unknown feature `{name}`; known: all, {}",
                        names.join(", ")
                    ));
                }
            }
        }
        Ok(Features { on })
    }

    pub fn has(&self, name: &str) -> bool {
        let i = FEATURES
            .iter()
            .position(|f| f.0 == name)
            .unwrap_or_else(|| panic!("no feature {name}"));
        self.on[i]
    }

    /// The features that are on, for the index file.
    pub fn describe(&self) -> String {
        FEATURES
            .iter()
            .zip(&self.on)
            .filter(|(_, on)| **on)
            .map(|(f, _)| f.0)
            .collect::<Vec<_>>()
            .join(",")
    }
}
