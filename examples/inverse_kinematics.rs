//! Inverse kinematics of a planar arm of three links: the end effector's position as a
//! function of the joint angles, its 2×3 Jacobian from `jacobian!`, and damped least
//! squares steps Δq = Jᵀ (J Jᵀ + λ²I)⁻¹ (target − position) until the hand is on target.
//!
//! Run: `cargo run --release --example inverse_kinematics`
use diff::prelude::*;

const LINKS: [f64; 3] = [1.0, 0.8, 0.5];

/// Where the hand is: each joint angle is relative to the previous link.
#[differentiable]
fn hand(q: &[f64]) -> Vec<f64> {
    let (mut x, mut y, mut angle) = (0.0, 0.0, 0.0);
    for i in 0..3 {
        angle += q[i];
        x += LINKS[i] * angle.cos();
        y += LINKS[i] * angle.sin();
    }
    vec![x, y]
}

pub fn main() {
    let target = [1.2, 1.1];
    let mut q = vec![0.3, 0.3, 0.3];
    let lambda2 = 1e-3;
    for step in 0..50 {
        let p = hand(&q);
        let e = [target[0] - p[0], target[1] - p[1]];
        let error = e[0].hypot(e[1]);
        if step % 5 == 0 {
            println!(
                "step {step:>2}: hand ({:.4}, {:.4}), error {error:.2e}",
                p[0], p[1]
            );
        }
        if error < 1e-10 {
            break;
        }
        let j = jacobian!(at: &q, of: hand);
        // A = J Jᵀ + λ² I (2×2), solved for the error, then mapped back by Jᵀ.
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let (a, b, d) = (
            dot(&j[0], &j[0]) + lambda2,
            dot(&j[0], &j[1]),
            dot(&j[1], &j[1]) + lambda2,
        );
        let det = a * d - b * b;
        let u = [(d * e[0] - b * e[1]) / det, (a * e[1] - b * e[0]) / det];
        for k in 0..3 {
            q[k] += j[0][k] * u[0] + j[1][k] * u[1];
        }
    }
    let p = hand(&q);
    println!("angles {q:.4?}, hand ({:.6}, {:.6})", p[0], p[1]);
    assert!(
        (p[0] - target[0]).hypot(p[1] - target[1]) < 1e-8,
        "the hand reaches the target"
    );
}
