use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
struct Model {
    w: Vec<f64>,
    b: f64,
    #[no_derivative]
    name: String,
}

#[differentiable]
fn loss(m: Model, xs: &[f64]) -> f64 {
    let pred: f64 = m.w.iter().zip(xs.iter()).map(|(w, x)| w * x).sum::<f64>() + m.b;
    println!("{}: {pred}", m.name);
    (pred - 1.0) * (pred - 1.0)
}

#[differentiable]
fn loss_ref(m: &Model) -> f64 {
    let mut s = m.b * m.b;
    for i in 0..m.w.len() {
        s += m.w[i] * m.w[i] * (i as f64 + 1.0);
    }
    s
}

#[test]
fn model_gradients() {
    let model = Model {
        w: vec![0.5, -1.0, 2.0],
        b: 0.25,
        name: "m".into(),
    };
    let xs = vec![1.0, 2.0, 3.0];
    let (v, pb) = value_with_pullback!(at: (model.clone(), &xs), of: loss);
    let (t, gx): (ModelTangent, Vec<f64>) = pb(1.0);
    let pred = 0.5 - 2.0 + 6.0 + 0.25;
    assert_eq!(v, (pred - 1.0) * (pred - 1.0));
    let r = 2.0 * (pred - 1.0);
    assert_eq!(t.w, vec![r * 1.0, r * 2.0, r * 3.0]);
    assert_eq!(t.b, r);
    assert_eq!(gx, vec![r * 0.5, -r, r * 2.0]);
    let g = gradient!(at: &model, of: loss_ref);
    assert_eq!(g.w, vec![1.0, -4.0, 12.0]);
    assert_eq!(g.b, 0.5);
    let z = ModelTangent {
        w: vec![0.0; 3],
        b: 1.0,
    };
    let d = differential!(at: &model, of: loss_ref)(z);
    assert_eq!(d, 0.5);
}
