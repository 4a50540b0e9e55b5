//! `#[derive(Differentiable)]`: the synthesized tangent struct and the trait impls.

use diff::prelude::*;

/// The example of API.md "Aggregates".
#[derive(Differentiable, Clone, Debug)]
pub struct Model {
    w: Vec<f64>,
    b: f64,
    #[no_derivative]
    name: String,
}

fn model() -> Model {
    Model {
        w: vec![1.0, 2.0, 3.0],
        b: 0.5,
        name: "m".to_string(),
    }
}

#[test]
fn tangent_is_built_with_a_struct_literal() {
    // `name` is `#[no_derivative]`: this literal compiles only because the tangent has no
    // `name` field (a missing field would be error E0063).
    let t = ModelTangent {
        w: vec![0.0; 3],
        b: 1.0,
    };
    assert_eq!(t.w, vec![0.0, 0.0, 0.0]);
    assert_eq!(t.b, 1.0);
    let t: <Model as Differentiable>::TangentVector = t;
    assert_eq!(
        format!("{t:?}"),
        "ModelTangent { w: [0.0, 0.0, 0.0], b: 1.0 }"
    );
}

#[test]
fn zero_tangent_has_the_shape_of_the_value() {
    let m = model();
    let z = m.zero_tangent();
    assert_eq!(
        z,
        ModelTangent {
            w: vec![0.0; 3],
            b: 0.0
        }
    );
    // The additive identity does not know the length; as for `Vec`, it adds as zeros.
    let zero = ModelTangent::zero();
    assert_eq!(zero, ModelTangent { w: vec![], b: 0.0 });
    let t = ModelTangent {
        w: vec![1.0, 2.0, 3.0],
        b: 4.0,
    };
    assert_eq!(zero.add(t.clone()), t);
}

#[test]
fn add_scale_dot_and_move_by() {
    let a = ModelTangent {
        w: vec![1.0, 2.0, 3.0],
        b: 1.0,
    };
    let b = ModelTangent {
        w: vec![0.5, -1.0, 2.0],
        b: -3.0,
    };
    assert_eq!(
        a.clone().add(b.clone()),
        ModelTangent {
            w: vec![1.5, 1.0, 5.0],
            b: -2.0
        }
    );
    assert_eq!(
        a.clone().scale(2.0),
        ModelTangent {
            w: vec![2.0, 4.0, 6.0],
            b: 2.0
        }
    );
    assert_eq!(a.dot(&b), 0.5 - 2.0 + 6.0 - 3.0);
    assert_ne!(a, b);

    let mut m = model();
    m.move_by(&a.scale(-0.5));
    assert_eq!(m.w, vec![0.5, 1.0, 1.5]);
    assert_eq!(m.b, 0.0);
    assert_eq!(m.name, "m", "a #[no_derivative] field does not move");
}

/// A derived struct inside another, next to an array.
#[derive(Differentiable, Clone, Debug)]
struct Layer {
    model: Model,
    bias: [f64; 3],
    scale: f64,
}

#[test]
fn nested_derived_structs_and_arrays() {
    let layer = Layer {
        model: model(),
        bias: [1.0, 2.0, 3.0],
        scale: 2.0,
    };
    let z: LayerTangent = layer.zero_tangent();
    assert_eq!(
        z.model,
        ModelTangent {
            w: vec![0.0; 3],
            b: 0.0
        }
    );
    assert_eq!(z.bias, [0.0; 3]);
    assert_eq!(z.scale, 0.0);

    let t = LayerTangent {
        model: ModelTangent {
            w: vec![1.0, 1.0, 1.0],
            b: 2.0,
        },
        bias: [0.5, 0.0, -0.5],
        scale: 1.0,
    };
    let sum = t.clone().add(t.clone().scale(3.0));
    assert_eq!(
        sum.model,
        ModelTangent {
            w: vec![4.0; 3],
            b: 8.0
        }
    );
    assert_eq!(sum.bias, [2.0, 0.0, -2.0]);
    assert_eq!(sum.scale, 4.0);
    assert_eq!(t.dot(&t), 3.0 + 4.0 + 0.5 + 1.0);

    let mut layer = layer;
    layer.move_by(&t);
    assert_eq!(layer.model.w, vec![2.0, 3.0, 4.0]);
    assert_eq!(layer.model.b, 2.5);
    assert_eq!(layer.bias, [1.5, 2.0, 2.5]);
    assert_eq!(layer.scale, 3.0);
}

/// A tuple struct; the `#[no_derivative]` field in the middle shifts the tangent's indices.
#[derive(Differentiable, Clone, Debug)]
struct Pair(f64, #[no_derivative] usize, Vec<f64>);

#[test]
fn tuple_struct() {
    let p = Pair(1.0, 7, vec![1.0, 2.0]);
    let z = p.zero_tangent();
    assert_eq!(z, PairTangent(0.0, vec![0.0, 0.0]));
    let t = PairTangent(2.0, vec![1.0, -1.0]);
    assert_eq!(t.clone().add(t.clone()), PairTangent(4.0, vec![2.0, -2.0]));
    assert_eq!(t.clone().scale(0.5), PairTangent(1.0, vec![0.5, -0.5]));
    assert_eq!(t.dot(&t), 6.0);
    assert_eq!(format!("{t:?}"), "PairTangent(2.0, [1.0, -1.0])");
    let mut p = p;
    p.move_by(&t);
    assert_eq!((p.0, p.1, p.2), (3.0, 7, vec![2.0, 1.0]));
}

/// A unit-like struct has a unit-like tangent.
#[derive(Differentiable, Clone, Debug)]
struct Nothing;

#[test]
fn unit_struct() {
    let z: NothingTangent = Nothing.zero_tangent();
    assert_eq!(z.clone().add(NothingTangent).scale(2.0), NothingTangent);
    assert_eq!(z.dot(&NothingTangent), 0.0);
    Nothing.move_by(&z);
}

/// Generic over the scalar; `S` (only in a `#[no_derivative]` field) is not a parameter of
/// the tangent.
#[derive(Differentiable, Clone, Debug)]
struct Point<T, S> {
    x: T,
    y: T,
    #[no_derivative]
    label: S,
}

#[test]
fn generic_struct() {
    let p = Point {
        x: 1.0f64,
        y: 2.0,
        label: "p",
    };
    let t: PointTangent<f64> = PointTangent { x: 1.0, y: -1.0 };
    assert_eq!(p.zero_tangent(), PointTangent { x: 0.0, y: 0.0 });
    assert_eq!(
        t.clone().add(t.clone().scale(2.0)),
        PointTangent { x: 3.0, y: -3.0 }
    );
    assert_eq!(t.dot(&t), 2.0);
    let mut p = p;
    p.move_by(&t);
    assert_eq!((p.x, p.y, p.label), (2.0, 1.0, "p"));

    let q = Point {
        x: 1.0f32,
        y: 2.0f32,
        label: 3u8,
    };
    let tq: PointTangent<f32> = q.zero_tangent();
    assert_eq!(
        tq,
        PointTangent {
            x: 0.0f32,
            y: 0.0f32
        }
    );

    // Generic over a non-scalar: the tangent holds `T::TangentVector`.
    let v = Point {
        x: vec![1.0, 2.0],
        y: vec![3.0],
        label: (),
    };
    let tv: PointTangent<Vec<f64>> = v.zero_tangent();
    assert_eq!(
        tv,
        PointTangent {
            x: vec![0.0, 0.0],
            y: vec![0.0]
        }
    );
}

/// Const generics, bounds and where clauses carry over.
#[derive(Differentiable, Clone, Debug)]
struct Weights<T: Copy, const N: usize>
where
    T: Default,
{
    rows: [[T; N]; 2],
}

#[test]
fn const_generic_struct() {
    let w = Weights {
        rows: [[1.0f64, 2.0], [3.0, 4.0]],
    };
    let t: WeightsTangent<f64, 2> = WeightsTangent {
        rows: [[1.0, 0.0], [0.0, 1.0]],
    };
    assert_eq!(w.zero_tangent().rows, [[0.0; 2]; 2]);
    assert_eq!(t.dot(&t), 2.0);
    let mut w = w;
    w.move_by(&t.scale(10.0));
    assert_eq!(w.rows, [[11.0, 2.0], [3.0, 14.0]]);
}

/// A recursive struct: `Self` in a field type means the struct, not the tangent.
#[derive(Differentiable, Clone, Debug)]
struct Tree {
    value: f64,
    children: Vec<Self>,
}

#[test]
fn recursive_struct() {
    let leaf = Tree {
        value: 2.0,
        children: vec![],
    };
    let tree = Tree {
        value: 1.0,
        children: vec![leaf.clone(), leaf],
    };
    let z: TreeTangent = tree.zero_tangent();
    assert_eq!(z.children.len(), 2);
    let leaf_t = TreeTangent {
        value: 1.0,
        children: vec![],
    };
    let t = TreeTangent {
        value: 0.5,
        children: vec![leaf_t.clone(), leaf_t.scale(2.0)],
    };
    assert_eq!(t.dot(&t), 0.25 + 1.0 + 4.0);
    let mut tree = tree;
    tree.move_by(&t);
    assert_eq!(tree.value, 1.5);
    assert_eq!(tree.children[1].value, 4.0);
}

/// Generated names do not clash with fields named like the generated code's bindings.
#[derive(Differentiable, Clone, Debug)]
struct Clash {
    other: f64,
    by: f64,
    direction: f64,
    f: f64,
}

#[test]
fn field_names_do_not_clash_with_generated_bindings() {
    let t = ClashTangent {
        other: 1.0,
        by: 2.0,
        direction: 3.0,
        f: 4.0,
    };
    assert_eq!(t.clone().scale(2.0).other, 2.0);
    assert_eq!(t.dot(&t), 30.0);
    let mut c = Clash {
        other: 0.0,
        by: 0.0,
        direction: 0.0,
        f: 0.0,
    };
    c.move_by(&t);
    assert_eq!(c.direction, 3.0);
}

mod visibility {
    use diff::prelude::*;

    /// `pub(crate)` struct: the tangent is `pub(crate)` too, with public fields.
    #[derive(Differentiable, Clone, Debug)]
    pub(crate) struct Inner {
        pub(crate) a: f64,
    }
}

#[test]
fn tangent_has_the_struct_visibility_and_public_fields() {
    let t = visibility::InnerTangent { a: 1.0 };
    assert_eq!(visibility::Inner { a: 0.0 }.zero_tangent(), t.scale(0.0));
}

#[test]
fn tangents_have_arithmetic_operators() {
    let a = ModelTangent {
        w: vec![1.0, 2.0, 3.0],
        b: 0.5,
    };
    let b = ModelTangent {
        w: vec![0.5, -1.0, 2.0],
        b: 2.0,
    };
    let sum = a.clone() + b.clone();
    assert_eq!((sum.w.clone(), sum.b), (vec![1.5, 1.0, 5.0], 2.5));
    let diff = a.clone() - b.clone();
    assert_eq!((diff.w, diff.b), (vec![0.5, 3.0, 1.0], -1.5));
    let neg = -a.clone();
    assert_eq!((neg.w, neg.b), (vec![-1.0, -2.0, -3.0], -0.5));
    let scaled = a.clone() * 2.0;
    assert_eq!((scaled.w, scaled.b), (vec![2.0, 4.0, 6.0], 1.0));
    let mut acc = ModelTangent::zero();
    acc += a.clone();
    acc += b.clone();
    acc -= a;
    assert_eq!((acc.w, acc.b), (b.w, b.b));
    // A step of gradient descent written with them.
    let mut m = model();
    let g = gradient!(at: &m, of: |m: &Model| m.w.iter().map(|w| w * w).sum::<f64>() + m.b);
    m.move_by(&(-(g * 0.5)));
    assert_eq!((m.w, m.b), (vec![0.0, 0.0, 0.0], 0.0));
    // A generic struct's tangent.
    let p = PointTangent::<f64> { x: 1.0, y: 2.0 };
    let q = p.clone() + p;
    assert_eq!((q.x, q.y), (2.0, 4.0));
}
