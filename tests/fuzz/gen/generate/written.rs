//! `for` loops writing an array through its items (feature `itermut`): the macro rewrites
//! them into loops over indices, in which the item stands for the element it is.

use super::*;

impl Gen<'_> {
    /// A slice method updating a mutable array local in place (feature `views`), through
    /// the local itself or a view of it: the derivatives follow the view to the local.
    pub(super) fn slice_op(&mut self) -> Option<Vec<Stmt>> {
        let arr = self.pick_mutable_local(&[Ty::A3])?.name;
        let view = match self.rng.below(4) {
            0 => arr.clone(),
            1 => format!("{arr}.as_mut_slice()"),
            2 => format!("(&mut {arr}[..])"),
            _ => format!("{arr}[1..]"),
        };
        let whole = !view.ends_with("[1..]");
        let op = match self.rng.below(5) {
            0 => "reverse()".to_string(),
            1 if whole => "swap(0, 2)".to_string(),
            2 if whole => format!("rotate_left({})", self.rng.range(1, 3)),
            3 => "rotate_right(1)".to_string(),
            _ => "swap(0, 1)".to_string(),
        };
        Some(vec![Stmt::SliceOp { view, op }])
    }

    /// `for q in arr.iter_mut() { .. *q .. }` and its kin over a mutable array local:
    /// through `&mut arr`, a sub-slice, `rev`, `skip`, `step_by`, `take`, `enumerate`,
    /// `zip` with another array (either side), or `chunks_mut(2)` (the chunk written as
    /// `c[0]`). The body, generated inside, neither reads nor writes `arr` (borrowed) nor
    /// the zipped array (borrowed too); loops of the kind nest in it.
    pub(super) fn written_loop(&mut self) -> Option<Vec<Stmt>> {
        let arr = self.pick_mutable_local(&[Ty::A3])?.name;
        let others: Vec<String> = self
            .vars_of(&[Ty::A3], false)
            .into_iter()
            .filter(|v| v.name != arr)
            .map(|v| v.name)
            .collect();
        let label = if self.on("label") && self.rng.chance(0.2) {
            Some(self.fresh("'l"))
        } else {
            None
        };
        let q = self.fresh("q");
        // The items, the pattern, and the bindings it makes.
        let mut binds: Vec<(String, Ty)> = Vec::new();
        let mut borrowed = vec![arr.clone()];
        let (items, pat) = match self.rng.below(10) {
            0..=3 => {
                let items = match self.rng.below(9) {
                    0 => "@.iter_mut()".to_string(),
                    1 => "&mut @".to_string(),
                    2 => "@[1..].iter_mut()".to_string(),
                    3 => "@[..2].iter_mut()".to_string(),
                    4 => "@.iter_mut().rev()".to_string(),
                    5 => "@.iter_mut().skip(1)".to_string(),
                    6 => "@.iter_mut().step_by(2)".to_string(),
                    7 => "@.iter_mut().take(2)".to_string(),
                    _ => "@[1..=2].iter_mut().rev()".to_string(),
                };
                binds.push((q.clone(), Ty::RefF));
                (items, q.clone())
            }
            4 | 5 => {
                let j = self.fresh("j");
                let items = match self.rng.below(3) {
                    0 => "@.iter_mut().enumerate()",
                    1 => "@.iter_mut().rev().enumerate()",
                    _ => "@[1..].iter_mut().enumerate()",
                };
                binds.push((j.clone(), Ty::I));
                binds.push((q.clone(), Ty::RefF));
                (items.to_string(), format!("({j}, {q})"))
            }
            6 | 7 if !others.is_empty() => {
                let b = self.rng.pick(&others).clone();
                borrowed.push(b.clone());
                let w = self.fresh("w");
                binds.push((q.clone(), Ty::RefF));
                binds.push((w.clone(), Ty::F));
                if self.rng.chance(0.5) {
                    (
                        format!("@.iter_mut().zip({b}.iter())"),
                        format!("({q}, &{w})"),
                    )
                } else {
                    (
                        format!("{b}.iter().zip(@.iter_mut())"),
                        format!("(&{w}, {q})"),
                    )
                }
            }
            _ => {
                let c = self.fresh("c");
                let chunks = if self.rng.chance(0.7) {
                    "@.chunks_mut(2)"
                } else {
                    "@.chunks_exact_mut(2)"
                };
                if self.rng.chance(0.3) {
                    let j = self.fresh("j");
                    binds.push((j.clone(), Ty::I));
                    binds.push((c.clone(), Ty::Chunk));
                    (format!("{chunks}.enumerate()"), format!("({j}, {c})"))
                } else {
                    binds.push((c.clone(), Ty::Chunk));
                    (chunks.to_string(), c)
                }
            }
        };
        // (`@` in the templates is the array's name.)
        let items = items.replace('@', &arr);
        let saved = self.forbidden.len();
        self.forbidden.extend(borrowed);
        self.nest += 1;
        self.scopes.push(Vec::new());
        for (name, ty) in &binds {
            self.declare(name, *ty, false);
        }
        self.loops.push(LoopInfo {
            label: label.clone(),
            value: false,
        });
        // An update of the item first, so that every loop writes through it.
        let item = binds
            .iter()
            .find(|b| matches!(b.1, Ty::RefF | Ty::Chunk))
            .cloned()
            .expect("an item");
        let here = Var {
            name: item.0,
            ty: item.1,
            mutable: true,
        };
        let target = self.place_of(&here);
        let op = self.assign_op();
        let rhs = self.assign_rhs(op);
        let mut body = vec![Stmt::Assign {
            place: target,
            op,
            rhs,
        }];
        let n = self.rng.range(0, 2);
        body.extend(self.stmts(n));
        body.extend(self.sink_locals());
        self.loops.pop();
        self.scopes.pop();
        self.nest -= 1;
        self.forbidden.truncate(saved);
        Some(vec![Stmt::For {
            var: Some(pat),
            range: Range::Items(items),
            body,
            label,
        }])
    }
}
