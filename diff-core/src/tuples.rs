//! [`VectorSpace`], [`Differentiable`] and [`InnerProduct`] for `()` and tuples of up to six
//! elements. A tuple's tangent is the tuple of its elements' tangents.

use crate::{Differentiable, DotIn, InnerProduct, VectorSpace};

impl VectorSpace for () {
    #[inline(always)]
    fn zero_vector() -> Self {}
    #[inline(always)]
    fn add(self, _other: Self) -> Self {}
    #[inline(always)]
    fn scale(self, _by: f64) -> Self {}
}

impl Differentiable for () {
    type TangentVector = ();
    #[inline(always)]
    fn zero_tangent(&self) -> Self::TangentVector {}
    #[inline(always)]
    fn move_by(&mut self, _direction: &Self::TangentVector) {}
}

impl InnerProduct for () {
    #[inline(always)]
    fn dot(&self, _other: &Self) -> f64 {
        0.0
    }
}

impl<S: num_traits::Zero> DotIn<S> for () {
    #[inline(always)]
    fn dot_in(&self, _other: &Self) -> S {
        S::zero()
    }
}

macro_rules! tuple_impls {
    ($( ( $($T:ident $i:tt),+ ) )*) => {$(
        impl<$($T: VectorSpace),+> VectorSpace for ($($T,)+) {
            #[inline]
            fn zero_vector() -> Self {
                ($($T::zero_vector(),)+)
            }
            #[inline]
            fn add(self, other: Self) -> Self {
                ($(self.$i.add(other.$i),)+)
            }
            #[inline]
            fn scale(self, by: f64) -> Self {
                ($(self.$i.scale(by),)+)
            }
        }

        impl<$($T: Differentiable),+> Differentiable for ($($T,)+) {
            type TangentVector = ($($T::TangentVector,)+);
            #[inline]
            fn zero_tangent(&self) -> Self::TangentVector {
                ($(self.$i.zero_tangent(),)+)
            }
            #[inline]
            fn move_by(&mut self, direction: &Self::TangentVector) {
                $(self.$i.move_by(&direction.$i);)+
            }
        }

        impl<$($T: InnerProduct),+> InnerProduct for ($($T,)+) {
            #[inline]
            fn dot(&self, other: &Self) -> f64 {
                0.0 $(+ self.$i.dot(&other.$i))+
            }
        }

        impl<S: num_traits::Zero, $($T: DotIn<S>),+> DotIn<S> for ($($T,)+) {
            #[inline]
            fn dot_in(&self, other: &Self) -> S {
                S::zero() $(+ self.$i.dot_in(&other.$i))+
            }
        }
    )*};
}

tuple_impls! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit() {
        <() as VectorSpace>::zero_vector();
        ().add(());
        ().scale(2.0);
        ().zero_tangent();
        ().move_by(&());
        assert_eq!(().dot(&()), 0.0);
    }

    #[test]
    fn pairs() {
        assert_eq!(<(f64, f32)>::zero_vector(), (0.0, 0.0));
        assert_eq!((1.0, 2.0f32).add((3.0, 4.0)), (4.0, 6.0));
        assert_eq!((1.0, 2.0f32).scale(2.0), (2.0, 4.0));
        let mut p = (1.0, vec![1.0, 2.0]);
        assert_eq!(p.zero_tangent(), (0.0, vec![0.0, 0.0]));
        p.move_by(&(1.0, vec![1.0, 1.0]));
        assert_eq!(p, (2.0, vec![2.0, 3.0]));
        assert_eq!((1.0, [2.0, 3.0]).dot(&(4.0, [5.0, 6.0])), 4.0 + 10.0 + 18.0);
    }

    #[test]
    fn one_and_six() {
        assert_eq!(<(f64,)>::zero_vector(), (0.0,));
        assert_eq!((1.0,).add((2.0,)), (3.0,));
        type Six = (f64, f64, f64, f64, f64, f32);
        let x: Six = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
        assert_eq!(Six::zero_vector(), (0.0, 0.0, 0.0, 0.0, 0.0, 0.0));
        assert_eq!(x.add(x), (2.0, 4.0, 6.0, 8.0, 10.0, 12.0));
        assert_eq!(x.scale(0.5), (0.5, 1.0, 1.5, 2.0, 2.5, 3.0));
        assert_eq!(x.dot(&x), 91.0);
        let mut y = x;
        y.move_by(&x);
        assert_eq!(y, x.scale(2.0));
        assert_eq!(x.zero_tangent(), Six::zero_vector());
    }

    #[test]
    fn nested_tuple_with_unit() {
        let t = ((), (1.0, [2.0]));
        assert_eq!(t.zero_tangent(), ((), (0.0, [0.0])));
    }
}
