//! A test target in a folder of its own (`tests/module_tree/main.rs`), whose module tree
//! holds a function in a private module of its own name one level down
//! (`objectives/mod.rs`: `mod sphere; pub use sphere::*;`): called by path, imported by
//! name, renamed and by glob. The macro reads the target's folder to know the layout.
#![deny(warnings)]
mod objectives;
use diff::prelude::*;

const X: [f64; 2] = [1.0, -2.0];

#[test]
fn by_path() {
    assert_eq!(
        gradient!(at: &X.to_vec(), of: objectives::sphere),
        vec![2.0, -4.0]
    );
}

mod by_name {
    use super::*;
    use crate::objectives::sphere;

    #[differentiable]
    fn twice(x: &[f64]) -> f64 {
        2.0 * sphere(x)
    }

    #[test]
    fn imported_by_name() {
        assert_eq!(gradient!(at: &X.to_vec(), of: sphere), vec![2.0, -4.0]);
        assert_eq!(gradient!(at: &X.to_vec(), of: twice), vec![4.0, -8.0]);
    }
}

mod renamed {
    use super::*;
    use crate::objectives::sphere as ball;

    #[test]
    fn imported_renamed() {
        assert_eq!(gradient!(at: &X.to_vec(), of: ball), vec![2.0, -4.0]);
    }
}

mod by_glob {
    use super::*;
    use crate::objectives::*;

    #[differentiable]
    fn cubed(x: &[f64]) -> f64 {
        sphere(x) * sphere(x) * sphere(x)
    }

    #[test]
    fn imported_by_glob() {
        // d/dx s^3 = 3 s^2 * 2x, s = 5.
        assert_eq!(gradient!(at: &X.to_vec(), of: cubed), vec![150.0, -300.0]);
    }
}
